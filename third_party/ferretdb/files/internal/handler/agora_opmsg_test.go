// Tests of Agora's replies without a second decode (agora_opmsg.go, patch 0014): agoraNewOpMsg
// against wire.NewOpMsg with wire.CheckNaNs set (FerretDB's reply path) on generated documents
// with and without NaN, on their encodings damaged in many ways and on hand-made bytes; messages
// from clients still refused by wire.ReadMessage as before; a reply no longer decoded.

package handler

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"math"
	"math/rand"
	"reflect"
	"testing"
	"time"

	"github.com/FerretDB/wire"
	"github.com/FerretDB/wire/wirebson"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/FerretDB/FerretDB/internal/backends/sqlite"
	"github.com/FerretDB/FerretDB/internal/bson"
	"github.com/FerretDB/FerretDB/internal/clientconn/conninfo"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/must"
	"github.com/FerretDB/FerretDB/internal/util/state"
	"github.com/FerretDB/FerretDB/internal/util/testutil"
)

// agoraNaNs are float64 NaNs of several bit patterns (quiet, signaling, negative, payloads).
var agoraNaNs = []float64{
	math.NaN(),
	math.Float64frombits(0x7ff0000000000001),
	math.Float64frombits(0xfff8000000000000),
	math.Float64frombits(0x7fffffffffffffff),
	math.Float64frombits(0xffffffffffffffff),
}

// agoraOpMsgValue returns a random value of any type wirebson encodes; NaNs only if nan.
func agoraOpMsgValue(r *rand.Rand, depth int, nan bool) any {
	n := 17
	if depth > 3 {
		n = 15 // no more documents or arrays
	}

	switch r.Intn(n) {
	case 0:
		if nan && r.Intn(3) == 0 {
			return agoraNaNs[r.Intn(len(agoraNaNs))]
		}

		return []float64{0, math.Copysign(0, -1), 1.5, math.Inf(1), math.Inf(-1), math.MaxFloat64, 5e-324}[r.Intn(7)]
	case 1:
		return []string{"", "a", "é😀", "with\x00nul", "\x00", "0"}[r.Intn(6)]
	case 2:
		return wirebson.Binary{Subtype: wirebson.BinarySubtype(r.Intn(9)), B: [][]byte{nil, {0}, {1, 2, 3}}[r.Intn(3)]}
	case 3:
		return wirebson.ObjectID{byte(r.Intn(256)), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, byte(r.Intn(256))}
	case 4:
		return r.Intn(2) == 0
	case 5:
		return time.UnixMilli(r.Int63n(1<<45) - 1<<44).UTC()
	case 6:
		return wirebson.Null
	case 7:
		// a 0 byte in a regex's pattern or options is written as is, which DecodeDeep reads otherwise
		return wirebson.Regex{Pattern: []string{"^a", "", "a\x00b"}[r.Intn(3)], Options: []string{"", "i", "m\x00"}[r.Intn(3)]}
	case 8:
		return int32(r.Intn(7) - 3)
	case 9:
		return wirebson.Timestamp(r.Uint64())
	case 10:
		return r.Int63() - r.Int63()
	case 11:
		return wirebson.Decimal128{H: r.Uint64(), L: r.Uint64()}
	case 12, 13, 14:
		return float64(r.Intn(100)) / 4
	case 15:
		return agoraOpMsgDocument(r, depth+1, nan)
	default:
		arr := wirebson.MakeArray(0)
		for range r.Intn(4) {
			must.NoError(arr.Add(agoraOpMsgValue(r, depth+1, nan)))
		}

		return arr
	}
}

// agoraOpMsgDocument returns a random document; a key with a 0 byte now and then (written as is).
func agoraOpMsgDocument(r *rand.Rand, depth int, nan bool) *wirebson.Document {
	doc := wirebson.MakeDocument(0)

	for i := range r.Intn(6) {
		name := []string{"a", "b", "_id", "", "k\x00x", "0"}[r.Intn(6)]
		if i == 0 && depth == 0 {
			name = "ok"
		}

		must.NoError(doc.Add(name, agoraOpMsgValue(r, depth, nan)))
	}

	return doc
}

// agoraDamage returns b changed in one of several ways: a byte changed, a length field changed,
// a tag changed, cut (with or without its length fixed), a byte inserted.
func agoraDamage(r *rand.Rand, b []byte) []byte {
	c := bytes.Clone(b)

	switch r.Intn(7) {
	case 0:
		c[r.Intn(len(c))] = byte(r.Intn(256))
	case 1:
		c[r.Intn(len(c))] ^= 1 << r.Intn(8)
	case 2:
		i := r.Intn(len(c))
		c[i] = []byte{0, 1, 2, 3, 4, 5, 6, 8, 0x0b, 0x0c, 0x7f, 0xff, 0x13, 0x20}[r.Intn(14)]
	case 3:
		c = c[:r.Intn(len(c))]
	case 4:
		c = c[:r.Intn(len(c))]
		if len(c) >= 4 {
			binary.LittleEndian.PutUint32(c, uint32(len(c)))
		}
	case 5:
		i := r.Intn(len(c) + 1)
		c = append(c[:i], append([]byte{byte(r.Intn(256))}, c[i:]...)...)
		binary.LittleEndian.PutUint32(c, uint32(len(c)))
	default:
		if len(c) >= 8 {
			i := r.Intn(len(c) - 3)
			binary.LittleEndian.PutUint32(c[i:], uint32(r.Intn(len(c)+8)))
		}
	}

	return c
}

// agoraHandMadeDocuments are encodings at each edge of DecodeDeep's checks.
func agoraHandMadeDocuments() [][]byte {
	doc := func(elements ...[]byte) []byte {
		b := []byte{0, 0, 0, 0}
		for _, e := range elements {
			b = append(b, e...)
		}

		b = append(b, 0)
		binary.LittleEndian.PutUint32(b, uint32(len(b)))

		return b
	}

	el := func(tag byte, name string, value ...byte) []byte {
		return append(append([]byte{tag}, append([]byte(name), 0)...), value...)
	}

	f64 := func(bits uint64) []byte { return binary.LittleEndian.AppendUint64(nil, bits) }
	str := func(n uint32, s string) []byte { return append(binary.LittleEndian.AppendUint32(nil, n), s...) }

	nested := doc(el(0x01, "x", f64(0x7ff8000000000001)...))
	arr := doc(el(0x10, "0", 1, 0, 0, 0), el(0x10, "1", 2, 0, 0, 0))
	nanArr := doc(el(0x10, "0", 1, 0, 0, 0), el(0x01, "1", f64(0xfff8000000000000)...))

	res := [][]byte{
		{}, {5, 0, 0, 0}, {5, 0, 0, 0, 0}, {5, 0, 0, 0, 1}, {4, 0, 0, 0, 0}, {6, 0, 0, 0, 0, 0}, {6, 0, 0, 0, 0},
		{0xff, 0xff, 0xff, 0xff, 0}, {5, 0, 0, 0, 0, 0},
		doc(el(0x01, "f", f64(math.Float64bits(1.5))...)),
		doc(el(0x01, "f", f64(0x7ff8000000000000)...)),
		doc(el(0x01, "f", 1, 2, 3)),
		doc(el(0x02, "s", str(1, "\x00")...)),
		doc(el(0x02, "s", str(0, "")...)),
		doc(el(0x02, "s", str(2, "a\x01")...)),
		doc(el(0x02, "s", str(3, "ab\x00")...)),
		doc(el(0x02, "s", str(30, "ab\x00")...)),
		doc(el(0x02, "s", str(0xffffffff, "ab\x00")...)),
		doc(el(0x03, "d", nested...)),
		doc(el(0x03, "d", doc()...)),
		doc(el(0x04, "a", arr...)),
		doc(el(0x04, "a", nanArr...)),
		doc(el(0x03, "d", arr...)),
		doc(el(0x04, "a", doc(el(0x10, "1", 1, 0, 0, 0))...)),
		doc(el(0x04, "a", doc(el(0x10, "00", 1, 0, 0, 0))...)),
		doc(el(0x04, "a", doc(el(0x10, "", 1, 0, 0, 0))...)),
		doc(el(0x04, "a", doc(el(0x04, "0", nanArr...))...)),
		doc(el(0x03, "d", 4, 0, 0, 0, 0)),
		doc(el(0x03, "d", 9, 0, 0, 0, 0)),
		doc(el(0x03, "d", 5, 0, 0, 0, 1)),
		doc(el(0x05, "b", 0, 0, 0, 0, 0)),
		doc(el(0x05, "b", 2, 0, 0, 0, 0, 7, 7)),
		doc(el(0x05, "b", 3, 0, 0, 0, 0, 7, 7)),
		doc(el(0x05, "b", 0xff, 0xff, 0xff, 0xff, 0)),
		doc(el(0x06, "u")),
		doc(el(0x07, "o", make([]byte, 12)...)),
		doc(el(0x07, "o", make([]byte, 11)...)),
		doc(el(0x08, "t", 1)),
		doc(el(0x08, "t", 2)),
		doc(el(0x08, "t")),
		doc(el(0x09, "t", make([]byte, 8)...)),
		doc(el(0x0a, "n")),
		doc(el(0x0b, "r", 'a', 0, 'i', 0)),
		doc(el(0x0b, "r", 0, 0)),
		doc(el(0x0b, "r", 'a', 0)),
		doc(el(0x0c, "p", str(1, "\x00")...)),
		doc(el(0x0d, "j", str(1, "\x00")...)),
		doc(el(0x0e, "s", str(1, "\x00")...)),
		doc(el(0x0f, "j")),
		doc(el(0x10, "i", 1, 2, 3, 4)),
		doc(el(0x10, "i", 1, 2, 3)),
		doc(el(0x11, "t", make([]byte, 8)...)),
		doc(el(0x12, "l", make([]byte, 8)...)),
		doc(el(0x12, "l", make([]byte, 7)...)),
		doc(el(0x13, "m", make([]byte, 16)...)),
		doc(el(0x13, "m", make([]byte, 15)...)),
		doc(el(0x7f, "M")),
		doc(el(0xff, "m")),
		doc(el(0x14, "x")),
		doc(el(0x01, "dup", f64(0)...), el(0x01, "dup", f64(1)...)),
		append(doc(el(0x0a, "n")), 0),
		{7, 0, 0, 0, 0x0a, 0, 0},
		{6, 0, 0, 0, 0x0a, 0},
	}

	// NaN before an element DecodeDeep refuses: the decoding error comes first
	res = append(res, doc(el(0x01, "f", f64(0x7ff8000000000000)...), el(0x08, "t", 2)))

	return res
}

// agoraCompareOpMsg checks that agoraNewOpMsg gives what wire.NewOpMsg gives: the same message
// or the same error, word for word. It returns whether the message was refused.
func agoraCompareOpMsg(t *testing.T, doc wirebson.AnyDocument) bool {
	t.Helper()

	want, wantErr := wire.NewOpMsg(doc)
	got, gotErr := agoraNewOpMsg(doc)

	if wantErr != nil {
		require.Error(t, gotErr)
		assert.Equal(t, wantErr.Error(), gotErr.Error())
		assert.Nil(t, got)

		return true
	}

	require.NoError(t, gotErr)
	assert.True(t, reflect.DeepEqual(want, got), "messages differ")
	assert.Equal(t, must.NotFail(want.MarshalBinary()), must.NotFail(got.MarshalBinary()))

	return false
}

// agoraWireAccepts reports whether the wire package's check passes b (wire.CheckNaNs is set).
func agoraWireAccepts(b []byte) bool {
	if b == nil {
		b = []byte{}
	}

	_, err := wire.NewOpMsg(wirebson.RawDocument(b))

	return err == nil
}

func TestAgoraOpMsgCheckStillOn(t *testing.T) {
	t.Parallel()

	// FerretDB's init (wire.go): messages read from clients are still checked by the wire package
	require.True(t, wire.CheckNaNs)
}

func TestAgoraOpMsgSameAsWire(t *testing.T) {
	t.Parallel()

	r := rand.New(rand.NewSource(14))

	var refused, accepted, damagedRefused, damagedAccepted int

	for i := range 3000 {
		doc := agoraOpMsgDocument(r, 0, i%2 == 0)

		if agoraCompareOpMsg(t, doc) {
			refused++
		} else {
			accepted++
		}

		raw := must.NotFail(doc.Encode())
		assert.Equal(t, agoraWireAccepts(raw), agoraBSONClean(raw), "%x", []byte(raw))

		for range 5 {
			d := agoraDamage(r, raw)
			assert.Equal(t, agoraWireAccepts(d), agoraBSONClean(d), "%x", d)

			if len(d) > 0 {
				if agoraCompareOpMsg(t, wirebson.RawDocument(d)) {
					damagedRefused++
				} else {
					damagedAccepted++
				}
			}
		}
	}

	t.Logf("generated: %d refused, %d accepted; damaged: %d refused, %d accepted",
		refused, accepted, damagedRefused, damagedAccepted)

	// both outcomes are well represented
	assert.Greater(t, refused, 500)
	assert.Greater(t, accepted, 500)
	assert.Greater(t, damagedRefused, 1000)
	assert.Greater(t, damagedAccepted, 100)

	handMade := agoraHandMadeDocuments()
	t.Logf("hand-made: %d", len(handMade))

	for _, b := range handMade {
		assert.Equal(t, agoraWireAccepts(b), agoraBSONClean(b), "%x", b)

		if len(b) > 0 {
			agoraCompareOpMsg(t, wirebson.RawDocument(b))
		}
	}
}

func FuzzAgoraBSONClean(f *testing.F) {
	r := rand.New(rand.NewSource(1))

	for _, b := range agoraHandMadeDocuments() {
		f.Add(b)
	}

	for i := range 40 {
		raw := must.NotFail(agoraOpMsgDocument(r, 0, i%2 == 0).Encode())
		f.Add([]byte(raw))
		f.Add(agoraDamage(r, raw))
	}

	f.Fuzz(func(t *testing.T, b []byte) {
		if agoraWireAccepts(b) != agoraBSONClean(b) {
			t.Fatalf("wire accepts: %t, agoraBSONClean: %t: %x", agoraWireAccepts(b), agoraBSONClean(b), b)
		}

		if len(b) > 0 {
			agoraCompareOpMsg(t, wirebson.RawDocument(b))
		}
	})
}

// agoraOpMsgBytes returns an OP_MSG with its header: a section of kind 0 holding doc, and, if seq
// is not empty, a section of kind 1 "documents" holding seq.
func agoraOpMsgBytes(doc []byte, seq ...[]byte) []byte {
	body := []byte{0, 0, 0, 0, 0}
	body = append(body, doc...)

	if len(seq) > 0 {
		sec := append([]byte("documents"), 0)
		for _, d := range seq {
			sec = append(sec, d...)
		}

		body = append(body, 1)
		body = binary.LittleEndian.AppendUint32(body, uint32(len(sec)+4))
		body = append(body, sec...)
	}

	b := binary.LittleEndian.AppendUint32(nil, uint32(16+len(body)))
	b = binary.LittleEndian.AppendUint32(b, 7)
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint32(b, uint32(wire.OpCodeMsg))

	return append(b, body...)
}

// TestAgoraOpMsgIncoming checks that a message from a client holding a NaN anywhere (section of
// kind 0 or 1, nested documents, arrays) is refused by wire.ReadMessage, with the error the
// connection is closed with (FerretDB logs it), and that one without is read.
func TestAgoraOpMsgIncoming(t *testing.T) {
	t.Parallel()

	const nanErr = "[msg_body.go:86 wire.ReadMessage] [op_msg.go:258 wire.(*OpMsg).UnmarshalBinaryNocopy] NaN is not supported"

	enc := func(pairs ...any) []byte { return must.NotFail(wirebson.MustDocument(pairs...).Encode()) }
	nan := math.NaN()

	clean := enc("insert", "c", "$db", "test")
	cleanDoc := enc("_id", int32(1), "a", wirebson.MustArray(1.5, wirebson.MustDocument("b", math.Inf(1))))

	for name, tc := range map[string]struct {
		msg []byte
		err string
	}{
		"Clean":                {msg: agoraOpMsgBytes(clean)},
		"CleanKind1":           {msg: agoraOpMsgBytes(clean, cleanDoc, cleanDoc)},
		"Kind0":                {msg: agoraOpMsgBytes(enc("find", "c", "filter", wirebson.MustDocument("a", nan), "$db", "test")), err: nanErr},
		"Kind0Top":             {msg: agoraOpMsgBytes(enc("ping", nan, "$db", "test")), err: nanErr},
		"Kind0Array":           {msg: agoraOpMsgBytes(enc("find", "c", "filter", wirebson.MustDocument("a", wirebson.MustDocument("$in", wirebson.MustArray(1.0, nan))), "$db", "test")), err: nanErr},
		"Kind1":                {msg: agoraOpMsgBytes(clean, cleanDoc, enc("_id", int32(2), "a", nan)), err: nanErr},
		"Kind1Nested":          {msg: agoraOpMsgBytes(clean, enc("_id", int32(2), "a", wirebson.MustArray(wirebson.MustDocument("b", wirebson.MustArray(nan))))), err: nanErr},
		"Kind1NegativeNaN":     {msg: agoraOpMsgBytes(clean, enc("a", math.Float64frombits(0xfff8000000000000))), err: nanErr},
		"Kind1SignalingNaNArr": {msg: agoraOpMsgBytes(clean, enc("a", wirebson.MustArray(math.Float64frombits(0x7ff0000000000001)))), err: nanErr},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()

			_, body, err := wire.ReadMessage(bufio.NewReader(bytes.NewReader(tc.msg)))
			if tc.err == "" {
				require.NoError(t, err)
				require.IsType(t, new(wire.OpMsg), body)

				return
			}

			require.Error(t, err)
			assert.Equal(t, tc.err, err.Error())
		})
	}
}

// TestAgoraOpMsgNotDecoded checks that a reply is not decoded again: agoraNewOpMsg allocates a
// few times whatever the reply holds (wire.NewOpMsg allocates for every value), and so does
// documentOpMsg beyond converting and encoding the document.
func TestAgoraOpMsgNotDecoded(t *testing.T) { //nolint:paralleltest // testing.AllocsPerRun
	batch := wirebson.MakeArray(0)
	docs := types.MakeArray(0)

	for i := range 2000 {
		must.NoError(batch.Add(wirebson.MustDocument("_id", int32(i), "s", "text", "f", 1.5, "a", wirebson.MustArray(int32(1), "x"))))
		docs.Append(must.NotFail(types.NewDocument("_id", int32(i), "s", "text", "f", 1.5)))
	}

	reply := wirebson.MustDocument("cursor", wirebson.MustDocument("firstBatch", batch, "id", int64(0), "ns", "db.c"), "ok", 1.0)
	raw := must.NotFail(reply.Encode())

	wireAllocs := testing.AllocsPerRun(5, func() { must.NotFail(wire.NewOpMsg(raw)) })
	agoraAllocs := testing.AllocsPerRun(5, func() { must.NotFail(agoraNewOpMsg(raw)) })
	t.Logf("allocations: wire.NewOpMsg %.0f, agoraNewOpMsg %.0f", wireAllocs, agoraAllocs)
	assert.Greater(t, wireAllocs, 10000.0)
	assert.LessOrEqual(t, agoraAllocs, 10.0)

	doc := must.NotFail(types.NewDocument("cursor", must.NotFail(types.NewDocument("firstBatch", docs, "id", int64(0))), "ok", 1.0))
	encodeAllocs := testing.AllocsPerRun(5, func() { must.NotFail(must.NotFail(bson.FromDocument(doc)).Encode()) })
	replyAllocs := testing.AllocsPerRun(5, func() { must.NotFail(documentOpMsg(doc)) })
	t.Logf("allocations: converting and encoding %.0f, documentOpMsg %.0f", encodeAllocs, replyAllocs)
	assert.LessOrEqual(t, replyAllocs, encodeAllocs+10)
}

// TestAgoraOpMsgNaNReply checks a reply that holds a NaN, computed by an aggregation from a
// client's infinities: the command fails with wire.NewOpMsg's error, as FerretDB's did (seen from
// the Node driver on FerretDB as published: InternalError, this message).
func TestAgoraOpMsgNaNReply(t *testing.T) {
	t.Parallel()

	sp, err := state.NewProvider("")
	require.NoError(t, err)

	b, err := sqlite.NewBackend(&sqlite.NewBackendParams{
		URI: testutil.TestSQLiteURI(t, ""), L: testutil.Logger(t), P: sp, BatchSize: 100,
	})
	require.NoError(t, err)

	h, err := New(&NewOpts{Backend: b, L: testutil.Logger(t), StateProvider: sp, BatchSize: 100})
	require.NoError(t, err)
	t.Cleanup(h.Close)

	ctx := conninfo.Ctx(testutil.Ctx(t), conninfo.New())
	dbName := testutil.DatabaseName(t)

	run := func(f func(*Handler, *wire.OpMsg) (*wire.OpMsg, error), cmd *types.Document) (*wire.OpMsg, error) {
		cmd.Set("$db", dbName)
		msg, err := wire.NewOpMsg(must.NotFail(bson.FromDocument(cmd)))
		require.NoError(t, err)

		return f(h, msg)
	}

	aggregate := func(h *Handler, msg *wire.OpMsg) (*wire.OpMsg, error) { return h.MsgAggregate(ctx, msg) }
	insert := func(h *Handler, msg *wire.OpMsg) (*wire.OpMsg, error) { return h.MsgInsert(ctx, msg) }

	_, err = run(insert, must.NotFail(types.NewDocument(
		"insert", "c", "documents", must.NotFail(types.NewArray(must.NotFail(types.NewDocument("_id", int32(1), "a", 0.0)))),
	)))
	require.NoError(t, err)

	project := func(values ...any) *types.Document {
		return must.NotFail(types.NewDocument(
			"aggregate", "c",
			"pipeline", must.NotFail(types.NewArray(must.NotFail(types.NewDocument(
				"$project", must.NotFail(types.NewDocument("x", must.NotFail(types.NewDocument("$sum", must.NotFail(types.NewArray(values...)))))),
			)))),
			"cursor", must.NotFail(types.NewDocument()),
		))
	}

	_, err = run(aggregate, project(math.Inf(1), math.Inf(-1)))
	require.Error(t, err)
	assert.Equal(t, "[op_msg.go:48 wire.NewOpMsg] [op_msg.go:80 wire.(*OpMsg).SetSections] NaN is not supported", err.Error())

	res, err := run(aggregate, project(math.Inf(1), 1.0))
	require.NoError(t, err)

	doc := must.NotFail(must.NotFail(res.RawDocument()).DecodeDeep())
	batch := doc.Get("cursor").(*wirebson.Document).Get("firstBatch").(*wirebson.Array)
	assert.Equal(t, math.Inf(1), batch.Get(0).(*wirebson.Document).Get("x"))
}
