// Agora's raw reads, the handler's part (patch 0008; the backend's is backends/sqlite/agora_raw.go).
//
// A find whose filter, sort and limit the backend applies entirely in SQL, and whose projection is
// nothing or an exclusion of top-level fields, gets its first batch as BSON the backend wrote from
// the stored documents; the reply is assembled around those bytes. Everything else about the reply
// is MsgFind's: the same batch and cursor rules, the same later batches (decoded, through
// makeFindIter), the same errors. agora_raw_test.go compares the replies with FerretDB's path.

package handler

import (
	"context"
	"encoding/binary"
	"errors"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/FerretDB/wire"
	"github.com/FerretDB/wire/wirebson"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/bson"
	"github.com/FerretDB/FerretDB/internal/clientconn/cursor"
	"github.com/FerretDB/FerretDB/internal/handler/common"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/iterator"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
)

// agoraGoFilter keeps skip + limit from the backend when part of the filter is applied in Go only:
// makeFindQueryParams keeps the terms on dotted paths from the backend, whose translation of the
// rest may then be exact while the page still loses documents to the filter in Go. (Found by
// agora_raw_test.go: a sorted find with {"a.y": 1.5} and a limit returned too few documents.)
func agoraGoFilter(sortReq *common.AgoraSortRequest, h *Handler, filter *types.Document) {
	if sortReq == nil || h.EnableNestedPushdown {
		return
	}

	for _, k := range filter.Keys() {
		if strings.ContainsRune(k, '.') {
			sortReq.Limit = 0
			return
		}
	}
}

// agoraRawRequest returns the raw request for a find the backend is asked to sort (sortReq), or nil
// when its answer needs work in Go that only decoded documents allow: a skip, a negative limit, a
// batch size of 0, record ids, a tailable cursor, a filter on a dotted path (which the handler keeps
// from the backend: makeFindQueryParams), or a projection other than an exclusion of top-level fields.
func agoraRawRequest(sortReq *common.AgoraSortRequest, params *common.FindParams) *common.AgoraRawRequest {
	if sortReq == nil || params.Skip != 0 || params.Limit < 0 || params.BatchSize <= 0 ||
		params.ShowRecordId || params.Tailable || params.AwaitData {
		return nil
	}

	for _, k := range params.Filter.Keys() {
		if strings.ContainsRune(k, '.') {
			return nil
		}
	}

	exclude, ok := agoraExclusion(params.Projection)
	if !ok {
		return nil
	}

	return &common.AgoraRawRequest{Exclude: exclude}
}

// agoraExclusion returns the fields an exclusion projection of top-level fields leaves out (none
// for no projection); false for any other projection.
func agoraExclusion(projection *types.Document) ([]string, bool) {
	var exclude []string

	for _, k := range projection.Keys() {
		if k == "" || strings.ContainsAny(k, ".$") {
			return nil, false
		}

		v, _ := projection.Get(k)

		switch v := v.(type) {
		case bool:
			if v {
				return nil, false
			}
		case int32:
			if v != 0 {
				return nil, false
			}
		case int64:
			if v != 0 {
				return nil, false
			}
		case float64:
			if v != 0 {
				return nil, false
			}
		default:
			return nil, false
		}

		exclude = append(exclude, k)
	}

	return exclude, true
}

// agoraRawIterator returns the query's raw iterator when the backend made one for rawReq.
func agoraRawIterator(rawReq *common.AgoraRawRequest, queryRes *backends.QueryResult) common.AgoraRawIterator {
	if rawReq == nil || !rawReq.Ready {
		return nil
	}

	it, _ := queryRes.Iter.(common.AgoraRawIterator)

	return it
}

// agoraRawFinds counts the finds answered from a raw iterator (for agora_raw_test.go).
var agoraRawFinds atomic.Int64

// agoraRawFind answers a find from a raw iterator: the first batch as BSON, a cursor for the rest
// as MsgFind makes it.
func (h *Handler) agoraRawFind(
	ctx context.Context, cancel context.CancelFunc, it common.AgoraRawIterator, coll backends.Collection,
	qp *backends.QueryParams, params *common.FindParams, username string,
) (*wire.OpMsg, error) {
	agoraRawFinds.Add(1)

	closer := iterator.NewMultiCloser(iterator.CloserFunc(cancel))
	closer.Add(it)

	projection, _, err := common.ValidateProjection(params.Projection)
	if err != nil {
		closer.Close()
		return nil, lazyerrors.Error(err)
	}

	batch, n, err := agoraRawBatch(it, projection, params)
	if err != nil {
		closer.Close()
		return nil, handleMaxTimeMSError(err, params.MaxTimeMS, "find")
	}

	var cursorID int64

	if params.SingleBatch || n < params.BatchSize {
		closer.Close()
	} else {
		// A full batch: the rest through FerretDB's iterators, as MsgFind's cursor would give it.
		rest := *params
		rest.Sort = nil
		rest.Skip = 0

		var restIter types.DocumentsIterator = it

		if params.Limit > 0 {
			rest.Limit = params.Limit - n
			if rest.Limit == 0 {
				it.Close()
				restIter = iterator.Values(iterator.ForSlice([]*types.Document{}))
			}
		}

		iter, err := h.makeFindIter(restIter, closer, &rest)
		if err != nil {
			return nil, handleMaxTimeMSError(err, params.MaxTimeMS, "find")
		}

		c := h.cursors.NewCursor(ctx, iter, &cursor.NewParams{
			Data: &findCursorData{
				coll:       coll,
				qp:         qp,
				findParams: params,
			},
			DB:         params.DB,
			Collection: params.Collection,
			Username:   username,
			Type:       cursor.Normal,
		})

		cursorID = c.ID
	}

	res, err := wirebson.NewDocument(
		"cursor", wirebson.MustDocument(
			"firstBatch", wirebson.RawArray(batch),
			"id", cursorID,
			"ns", params.DB+"."+params.Collection,
		),
		"ok", float64(1),
	)
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	// As documentOpMsg: the reply is checked for NaN by one pass over its bytes (patch 0014).
	return agoraNewOpMsg(res)
}

// agoraRawBatch reads up to a batch of documents (fewer when the limit is reached) as the encoding
// of a BSON array; a document the backend gives decoded is projected and encoded as FerretDB does.
func agoraRawBatch(
	it common.AgoraRawIterator, projection *types.Document, params *common.FindParams,
) ([]byte, int64, error) {
	batch := make([]byte, 4, 64*1024)

	var n int64

	for n < params.BatchSize && (params.Limit == 0 || n < params.Limit) {
		// Room doubles ahead of the documents (append alone grows a large slice by a quarter, which
		// copied a 2.4 MB batch about a dozen times over).
		if cap(batch)-len(batch) < 1<<16 {
			batch = append(make([]byte, 0, 2*cap(batch)+1<<16), batch...)
		}

		// An element: an embedded document named by its index, then the document.
		elem := len(batch)
		batch = append(batch, 0x03)
		batch = strconv.AppendInt(batch, n, 10)
		batch = append(batch, 0)

		var doc *types.Document
		var err error

		batch, doc, err = it.NextRaw(batch)
		if errors.Is(err, iterator.ErrIteratorDone) {
			batch = batch[:elem]
			break
		}

		if err != nil {
			return nil, 0, lazyerrors.Error(err)
		}

		if doc != nil {
			if projection.Len() > 0 {
				if doc, err = common.ProjectDocument(doc, projection, params.Filter, false); err != nil {
					return nil, 0, lazyerrors.Error(err)
				}
			}

			d, err := bson.FromDocument(doc)
			if err != nil {
				return nil, 0, lazyerrors.Error(err)
			}

			raw, err := d.Encode()
			if err != nil {
				return nil, 0, lazyerrors.Error(err)
			}

			batch = append(batch, raw...)
		}

		n++
	}

	batch = append(batch, 0)
	binary.LittleEndian.PutUint32(batch, uint32(len(batch)))

	return batch, n, nil
}
