// Agora: the schema's keys are quoted without encoding/json when they need no escaping
// (third_party/ferretdb/README.md, docs/embedded-database.md, patch 0015).
//
// Why: every insert and update writes its document with Marshal, whose schema quoted each key with
// json.Marshal(key) and the list of keys with json.Marshal(keys): reflection and an allocation per
// key, ~0.8 % of FerretDB's CPU under a loop of single-document writes.
//
// What: a key made only of printable ASCII other than '"', '\\', '<', '>' and '&' is written between
// quotes as it is, which is exactly what json.Marshal writes for it (encoding/json escapes only
// those, control characters and some non-ASCII: invalid UTF-8, U+2028, U+2029); any other key goes
// through json.Marshal as before. The list of keys is '[', the keys so quoted, joined by ',', and
// ']', which is json.Marshal's encoding of a non-empty []string.

package sjson

import (
	"bytes"
	"encoding/json"
)

// agoraPlainJSONString reports whether json.Marshal(s) is s between double quotes.
func agoraPlainJSONString(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}

	return true
}

// agoraWriteJSONString writes json.Marshal(s) to buf.
func agoraWriteJSONString(buf *bytes.Buffer, s string) {
	if agoraPlainJSONString(s) {
		buf.WriteByte('"')
		buf.WriteString(s)
		buf.WriteByte('"')

		return
	}

	b, _ := json.Marshal(s) // a string always encodes
	buf.Write(b)
}

// agoraWriteJSONStrings writes json.Marshal(ss) to buf, for a non-empty ss.
func agoraWriteJSONStrings(buf *bytes.Buffer, ss []string) {
	buf.WriteByte('[')

	for i, s := range ss {
		if i > 0 {
			buf.WriteByte(',')
		}

		agoraWriteJSONString(buf, s)
	}

	buf.WriteByte(']')
}
