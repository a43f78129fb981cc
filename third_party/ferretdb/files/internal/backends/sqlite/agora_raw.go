// Agora's raw reads for the SQLite backend (third_party/ferretdb/README.md,
// docs/embedded-database.md, patch 0008).
//
// Why: reading the 5,000 comments of one topic spent about three quarters of FerretDB's time
// turning the stored JSON into BSON through three intermediate copies of every document.
//
// What: a sorted query whose filter is translated to SQL exactly (agora_sort.go), asked for raw
// documents by the handler (handler/agora_raw.go), returns an iterator that writes each document's
// BSON straight from its JSON (sjson.AgoraBSON) and checks its sort fields as agoraCheckedIterator
// does; a document the transcoder does not handle is decoded as before. With LIMIT the page is
// read and checked first, and on a mismatch the query runs again on FerretDB's path, as in
// agoraSortedQuery.

package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"slices"
	"sync"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/handler/common"
	"github.com/FerretDB/FerretDB/internal/handler/sjson"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/fsql"
	"github.com/FerretDB/FerretDB/internal/util/iterator"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
	"github.com/FerretDB/FerretDB/internal/util/resource"
)

// agoraRawQuery runs a planned, sorted query (p.orderBy != "") whose filter is exact, for raw documents.
func agoraRawQuery(
	ctx context.Context, db *fsql.DB, selectClause string, p *agoraPlan,
	req *common.AgoraSortRequest, raw *common.AgoraRawRequest,
) (*backends.QueryResult, error) {
	q := selectClause + p.where + p.orderBy
	args := p.args

	if p.limit > 0 {
		q += " LIMIT ?"
		args = append(slices.Clone(p.args), p.limit)
	}

	rows, err := db.AgoraQueryContext(ctx, q, args...)
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	it := &agoraRawIterator{
		ctx:     ctx,
		rows:    rows,
		token:   resource.NewToken(),
		keys:    agoraParseSort(req.Sort),
		exclude: raw.Exclude,
	}
	resource.Track(it, it.token)

	if p.limit > 0 {
		page, inOrder, err := it.readPage()
		if err != nil {
			it.Close()
			return nil, lazyerrors.Error(err)
		}

		if !inOrder {
			// Not reachable while agoraShapes is right; FerretDB's path then gives the answer.
			it.Close()

			rows, err = db.AgoraQueryContext(ctx, selectClause+p.where, p.args...)
			if err != nil {
				return nil, lazyerrors.Error(err)
			}

			return &backends.QueryResult{Iter: newQueryIterator(ctx, rows, false)}, nil
		}

		it.page = page
	}

	if p.limit == 0 {
		it.startFeed()
	}

	req.Sorted = true
	raw.Ready = true

	return &backends.QueryResult{Iter: it}, nil
}

// agoraRawItem is one document of a page read ahead: its BSON, or else its decoded form.
type agoraRawItem struct {
	json []byte
	raw  []byte
	doc  *types.Document
}

// agoraRawIterator gives a sorted query's documents as BSON (NextRaw) or decoded (Next), checking
// each one's sort fields after the previous one's (agoraSortKeys.inOrder).
type agoraRawIterator struct {
	m       sync.Mutex
	ctx     context.Context
	rows    *fsql.Rows // nil once closed
	token   *resource.Token
	keys    *agoraSortKeys
	exclude []string
	hint    sjson.AgoraSchemaHint // the schema of the previous document transcoded
	prev    *types.Document       // the previous document's sort fields
	page    []agoraRawItem        // when read ahead
	read    bool                  // whether the page was read ahead
	buf     sql.RawBytes          // the current row's stored document
	columns int                   // the rows' number of columns (the record id, then the document)

	// Streaming, the rows are read by a goroutine of their own (startFeed), while the caller
	// writes the previous ones: SQLite's part and the transcoding take a core each.
	feed     chan agoraFeedRow
	stop     chan struct{}
	exited   chan struct{}
	stopOnce sync.Once
}

// agoraFeedRow is a row read ahead: its stored document, or the error that ended the rows.
type agoraFeedRow struct {
	data []byte
	err  error
}

// startFeed starts reading the rows ahead, a few hundred at most.
func (it *agoraRawIterator) startFeed() {
	it.feed = make(chan agoraFeedRow, 256)
	it.stop = make(chan struct{})
	it.exited = make(chan struct{})

	go func() {
		defer close(it.exited)
		defer close(it.feed)

		for {
			data, err := it.nextJSON()
			if err == nil {
				data = bytes.Clone(data)
			}

			select {
			case it.feed <- agoraFeedRow{data: data, err: err}:
			case <-it.stop:
				return
			}

			if err != nil {
				return
			}
		}
	}()
}

// nextRow returns the next row's stored document, from the feed when there is one.
func (it *agoraRawIterator) nextRow() ([]byte, error) {
	if it.feed == nil {
		return it.nextJSON()
	}

	r, ok := <-it.feed
	if !ok {
		return nil, iterator.ErrIteratorDone
	}

	return r.data, r.err
}

// readPage reads and checks every row (a LIMIT query); false when one is out of order.
func (it *agoraRawIterator) readPage() ([]agoraRawItem, bool, error) {
	var page []agoraRawItem

	for {
		data, err := it.nextJSON()
		if err == iterator.ErrIteratorDone {
			break
		}

		if err != nil {
			return nil, false, err
		}

		data = bytes.Clone(data)

		raw, doc, ok, err := it.convert(make([]byte, 0, len(data)), data)
		if err != nil {
			return nil, false, err
		}

		if !ok {
			return nil, false, nil
		}

		page = append(page, agoraRawItem{json: data, raw: raw, doc: doc})
	}

	it.read = true

	return page, true, nil
}

// convert appends a document's BSON to dst (or decodes it, returning dst as given and the document)
// and checks its order; false when out of order.
func (it *agoraRawIterator) convert(dst, data []byte) ([]byte, *types.Document, bool, error) {
	var doc *types.Document

	out, wanted, ok := sjson.AgoraBSON(dst, data, it.exclude, it.keys.fields, &it.hint)
	if !ok {
		var err error
		if doc, err = sjson.Unmarshal(data); err != nil {
			return dst, nil, false, lazyerrors.Error(err)
		}

		out, wanted = dst, doc
	}

	if !it.keys.inOrder(it.prev, wanted) {
		return dst, nil, false, nil
	}

	it.prev = wanted

	return out, doc, true, nil
}

// nextJSON returns the stored form of the next row.
func (it *agoraRawIterator) nextJSON() ([]byte, error) {
	if it.rows == nil {
		return nil, iterator.ErrIteratorDone
	}

	if err := context.Cause(it.ctx); err != nil {
		it.closeRows()
		return nil, lazyerrors.Error(err)
	}

	if !it.rows.Next() {
		err := it.rows.Err()

		it.closeRows()

		if err == nil {
			return nil, iterator.ErrIteratorDone
		}

		return nil, lazyerrors.Error(err)
	}

	var recordID int64

	if it.columns == 0 {
		columns, err := it.rows.Columns()
		if err != nil {
			it.closeRows()
			return nil, lazyerrors.Error(err)
		}

		it.columns = len(columns)
	}

	// The row's text is copied into one buffer reused for every row (on a reader connection of
	// patch 0011, it is SQLite's memory, valid until the next row): what the caller keeps of it,
	// it copies.
	dest := []any{&it.buf}
	if it.columns == 2 {
		dest = []any{&recordID, &it.buf}
	}

	if err := it.rows.Scan(dest...); err != nil {
		it.closeRows()
		return nil, lazyerrors.Error(err)
	}

	return it.buf, nil
}

// next returns the next document read ahead.
func (it *agoraRawIterator) next() (agoraRawItem, error) {
	if len(it.page) == 0 {
		return agoraRawItem{}, iterator.ErrIteratorDone
	}

	item := it.page[0]
	it.page[0] = agoraRawItem{}
	it.page = it.page[1:]

	return item, nil
}

// NextRaw implements common.AgoraRawIterator.
func (it *agoraRawIterator) NextRaw(dst []byte) ([]byte, *types.Document, error) {
	it.m.Lock()
	defer it.m.Unlock()

	if it.read {
		item, err := it.next()
		if err != nil {
			return dst, nil, err
		}

		if item.doc != nil {
			return dst, item.doc, nil
		}

		return append(dst, item.raw...), nil, nil
	}

	data, err := it.nextRow()
	if err != nil {
		return dst, nil, err
	}

	out, doc, ok, err := it.convert(dst, data)
	if err == nil && !ok {
		err = lazyerrors.Errorf("agora: sorted read: document out of order")
	}

	if err != nil {
		it.close()
		return dst, nil, err
	}

	if doc != nil {
		return dst, doc, nil
	}

	return out, nil, nil
}

// Next implements iterator.Interface: the documents decoded, for a cursor's later batches.
func (it *agoraRawIterator) Next() (struct{}, *types.Document, error) {
	it.m.Lock()
	defer it.m.Unlock()

	var data []byte

	if it.read {
		item, err := it.next()
		if err != nil {
			return struct{}{}, nil, err
		}

		if item.doc != nil {
			return struct{}{}, item.doc, nil
		}

		data = item.json
	} else {
		var err error
		if data, err = it.nextRow(); err != nil {
			return struct{}{}, nil, err
		}
	}

	doc, err := sjson.Unmarshal(data)
	if err != nil {
		it.close()
		return struct{}{}, nil, lazyerrors.Error(err)
	}

	if !it.read {
		if !it.keys.inOrder(it.prev, doc) {
			it.close()
			return struct{}{}, nil, lazyerrors.Errorf("agora: sorted read: document %v out of order", doc.Keys())
		}

		it.prev = doc
	}

	return struct{}{}, doc, nil
}

// Close implements iterator.Interface.
func (it *agoraRawIterator) Close() {
	it.m.Lock()
	defer it.m.Unlock()

	it.close()
	it.page = nil
}

func (it *agoraRawIterator) close() {
	// The feed's goroutine stops (it may be waiting to hand on a row) before the rows close.
	if it.feed != nil {
		it.stopOnce.Do(func() { close(it.stop) })
		<-it.exited
	}

	it.closeRows()
	resource.Untrack(it, it.token)
}

// closeRows closes the rows (as soon as they are done or fail, to give the connection back).
func (it *agoraRawIterator) closeRows() {
	if it.rows != nil {
		it.rows.Close()
		it.rows = nil
	}
}

// check interfaces
var (
	_ common.AgoraRawIterator = (*agoraRawIterator)(nil)
)
