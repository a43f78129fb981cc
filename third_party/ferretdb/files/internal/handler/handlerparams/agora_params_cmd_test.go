// Commands' parameters read with the tag cache cold (emptied before the call) and warm (the same
// call again) give the same parameters and the same errors (agora_params.go, patch 0013).

package handlerparams_test

import (
	"fmt"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/FerretDB/FerretDB/internal/handler/common"
	"github.com/FerretDB/FerretDB/internal/handler/handlerparams"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/must"
	"github.com/FerretDB/FerretDB/internal/util/testutil"
)

// agoraCmdOutcome is what a Get*Params call returned (the parameters and the error as they are,
// compared deeply) or panicked with (FerretDB panics on an `updates` that is not an array of
// documents, in AliasFromType; so it does with the cache).
type agoraCmdOutcome struct {
	params any
	err    error
	panic  string
}

func agoraGet(f func() (any, error)) (o agoraCmdOutcome) {
	defer func() {
		if p := recover(); p != nil {
			o.panic = fmt.Sprint(p)
		}
	}()

	o.params, o.err = f()

	return
}

func TestAgoraParamsColdAndWarm(t *testing.T) {
	l := testutil.Logger(t)
	lsid := must.NotFail(types.NewDocument("id", types.Binary{Subtype: types.BinaryUUID, B: make([]byte, 16)}))
	doc := func(pairs ...any) *types.Document { return must.NotFail(types.NewDocument(pairs...)) }
	arr := func(values ...any) *types.Array { return must.NotFail(types.NewArray(values...)) }

	get := map[string]func(*types.Document, *slog.Logger) (any, error){
		"find":          func(d *types.Document, l *slog.Logger) (any, error) { return common.GetFindParams(d, l) },
		"update":        func(d *types.Document, l *slog.Logger) (any, error) { return common.GetUpdateParams(d, l) },
		"findAndModify": func(d *types.Document, l *slog.Logger) (any, error) { return common.GetFindAndModifyParams(d, l) },
		"insert":        func(d *types.Document, l *slog.Logger) (any, error) { return common.GetInsertParams(d, l) },
		"delete":        func(d *types.Document, l *slog.Logger) (any, error) { return common.GetDeleteParams(d, l) },
		"count":         func(d *types.Document, l *slog.Logger) (any, error) { return common.GetCountParams(d, l) },
	}

	for name, tc := range map[string]struct {
		get string
		doc *types.Document
	}{
		"FindByID": {"find", doc(
			"find", "topics", "filter", doc("_id", "x"), "limit", int32(1), "singleBatch", true,
			"lsid", lsid, "$db", "agora",
		)},
		"FindSorted": {"find", doc(
			"find", "comments", "filter", doc("topic", "t"), "sort", doc("at", int32(-1)), "skip", int64(5),
			"batchSize", int32(100000), "projection", doc("body", int32(0)), "maxTimeMS", int32(500),
			"$db", "agora", "$readPreference", doc("mode", "primary"), "apiVersion", "1",
		)},
		"FindUnknownField":  {"find", doc("find", "c", "nope", int32(1), "$db", "agora")},
		"FindNoDB":          {"find", doc("find", "c", "filter", doc())},
		"FindCollation":     {"find", doc("find", "c", "collation", doc("locale", "en"), "$db", "agora")},
		"FindReturnKey":     {"find", doc("find", "c", "returnKey", true, "$db", "agora")},
		"FindReturnKeyOff":  {"find", doc("find", "c", "returnKey", false, "$db", "agora")},
		"FindNegativeLimit": {"find", doc("find", "c", "limit", int32(-1), "$db", "agora")},
		"FindLimitString":   {"find", doc("find", "c", "limit", "1", "$db", "agora")},
		"FindFilterString":  {"find", doc("find", "c", "filter", "x", "$db", "agora")},
		"FindCollectionInt": {"find", doc("find", int32(1), "$db", "agora")},
		"FindEmptyName":     {"find", doc("find", "", "$db", "agora")},
		"FindUpperCaseKey":  {"find", doc("FIND", "c", "$db", "agora")},
		"FindMaxTimeDouble": {"find", doc("find", "c", "maxTimeMS", 1.5, "$db", "agora")},
		"UpdateInc": {"update", doc(
			"update", "topics", "ordered", true, "lsid", lsid, "txnNumber", int64(3), "$db", "agora",
			"updates", arr(doc("q", doc("_id", "x"), "u", doc("$inc", doc("n", int32(1))), "upsert", false)),
		)},
		"UpdateMissingQ":  {"update", doc("update", "c", "updates", arr(doc("u", doc())), "$db", "agora")},
		"UpdateNotDoc":    {"update", doc("update", "c", "updates", arr(int32(1)), "$db", "agora")},
		"UpdateNotArray":  {"update", doc("update", "c", "updates", doc(), "$db", "agora")},
		"UpdateBadMulti":  {"update", doc("update", "c", "updates", arr(doc("q", doc(), "u", doc(), "multi", "x")), "$db", "agora")},
		"UpdateUnknownIn": {"update", doc("update", "c", "updates", arr(doc("q", doc(), "u", doc(), "zz", int32(1))), "$db", "agora")},
		"FindAndModify": {"findAndModify", doc(
			"findAndModify", "topics", "query", doc("_id", "x"), "update", doc("$inc", doc("n", int32(1))),
			"new", true, "lsid", lsid, "$db", "agora",
		)},
		"FindAndModifyLower": {"findAndModify", doc(
			"findandmodify", "topics", "query", doc("_id", "x"), "remove", true, "$db", "agora",
		)},
		"FindAndModifyNoDB": {"findAndModify", doc("findAndModify", "c", "remove", true)},
		"Insert": {"insert", doc(
			"insert", "comments", "documents", arr(doc("_id", "a", "body", "b")), "ordered", true, "$db", "agora",
		)},
		"InsertNoDocuments": {"insert", doc("insert", "c", "$db", "agora")},
		"Delete": {"delete", doc(
			"delete", "marks", "deletes", arr(doc("q", doc("_id", "m"), "limit", int32(1))), "$db", "agora",
		)},
		"DeleteBadLimit": {"delete", doc("delete", "c", "deletes", arr(doc("q", doc(), "limit", int32(2))), "$db", "agora")},
		"Count":          {"count", doc("count", "users", "query", doc("name", "n"), "$db", "agora")},
		"CountSkip":      {"count", doc("count", "users", "skip", int32(-3), "$db", "agora")},
	} {
		t.Run(name, func(t *testing.T) {
			handlerparams.AgoraResetCache()

			cold := agoraGet(func() (any, error) { return get[tc.get](tc.doc.DeepCopy(), l) })
			warm := agoraGet(func() (any, error) { return get[tc.get](tc.doc.DeepCopy(), l) })

			assert.Equal(t, cold, warm)
		})
	}
}
