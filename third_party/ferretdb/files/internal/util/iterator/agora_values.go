// Agora's bound on the capacity ConsumeValuesN reserves (patch 0010).
//
// Why: ConsumeValuesN reserved room for n values at its first value, and n is the batch size a
// client asked for. A client that wants a whole result in one reply sends a large batchSize
// (Agora reads a topic's marks, labels or comments with 100,000), so each such find allocated
// and zeroed an 800 KB slice, however few documents matched: under Agora's load benchmark that was
// 15 % of the database's CPU, and more again in garbage collection of those slices.
//
// What: the first reservation is at most agoraMaxInitialCap values; append grows the slice as
// values come, so a large batch still arrives whole, at the cost of a few copies of pointers.

package iterator

// agoraMaxInitialCap is the most values ConsumeValuesN reserves room for before it has them.
const agoraMaxInitialCap = 128

// agoraInitialCap returns the capacity to reserve for up to n values.
func agoraInitialCap(n int) int {
	return min(n, agoraMaxInitialCap)
}
