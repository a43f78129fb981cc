// Agora's journal commits on the handler's side (patch 0016; the WAL syncs are fsql/agora_journal.go).
//
// Every command that writes runs through agoraJournaled: after the command, the journal of its
// database ($db) is marked written (the flusher syncs it within fsql.AgoraJournalInterval), or synced
// before the answer when the command's writeConcern asks for it with j: true or fsync: true, as
// MongoDB does. renameCollection runs on admin and names its databases in its arguments: it marks
// or syncs every journal, as does a command whose $db cannot be read.
// A command that fails is treated the same way: an ordered insert or a multi-statement update may
// have committed part of its work before the error.

package handler

import (
	"context"

	"github.com/FerretDB/wire"
	"github.com/FerretDB/wire/wirebson"

	"github.com/FerretDB/FerretDB/internal/util/fsql"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
)

// agoraWriteCommands are the commands that change documents, collections or indexes.
var agoraWriteCommands = []string{
	"insert", "update", "delete", "findAndModify", "findandmodify",
	"create", "createIndexes", "drop", "dropDatabase", "dropIndexes", "renameCollection",
}

// agoraJournalCommands wraps the handlers of the write commands (initCommands).
func (h *Handler) agoraJournalCommands() {
	for _, name := range agoraWriteCommands {
		if c := h.commands[name]; c != nil {
			c.Handler = agoraJournaled(name, c.Handler, fsql.AgoraJournalWritten, fsql.AgoraSyncJournals)
		}
	}
}

// agoraJournaled returns f followed by mark, or by sync when the command asks for its write on disk.
// A failed sync fails a command that succeeded: its write may not be on disk.
func agoraJournaled(
	command string,
	f func(context.Context, *wire.OpMsg) (*wire.OpMsg, error),
	mark func(db string),
	sync func(db string) error,
) func(context.Context, *wire.OpMsg) (*wire.OpMsg, error) {
	return func(ctx context.Context, msg *wire.OpMsg) (*wire.OpMsg, error) {
		res, err := f(ctx, msg)

		db, requested := agoraJournalOf(msg.RawSection0())
		if command == "renameCollection" {
			db = ""
		}

		if !requested {
			mark(db)
			return res, err
		}

		if serr := sync(db); serr != nil && err == nil {
			return nil, lazyerrors.Error(serr)
		}

		return res, err
	}
}

// agoraJournalOf returns the command document's database ($db; "" when it has none that is a
// string) and whether it asks for its write to be on disk before the answer: writeConcern.j or
// writeConcern.fsync true (a boolean, or a number other than 0, as MongoDB reads them). Anything else,
// a malformed command included, asks for nothing here (the command's own handler reports what is
// malformed).
func agoraJournalOf(cmd wirebson.RawDocument) (string, bool) {
	if len(cmd) == 0 {
		return "", false
	}

	doc, err := cmd.Decode()
	if err != nil {
		return "", false
	}

	db, _ := doc.Get("$db").(string)

	raw, ok := doc.Get("writeConcern").(wirebson.RawDocument)
	if !ok {
		return db, false
	}

	wc, err := raw.Decode()
	if err != nil {
		return db, false
	}

	return db, agoraTrue(wc.Get("j")) || agoraTrue(wc.Get("fsync"))
}

// agoraTrue reports whether v is true as a boolean or a number other than 0.
func agoraTrue(v any) bool {
	switch v := v.(type) {
	case bool:
		return v
	case int32:
		return v != 0
	case int64:
		return v != 0
	case float64:
		return v != 0
	default:
		return false
	}
}
