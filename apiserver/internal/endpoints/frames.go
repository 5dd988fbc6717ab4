package endpoints

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/apiserver/internal/printers"
)

// frameWriter writes one watch stream. It is owned by the watch's goroutine.
type frameWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	req     *request
	out     output
	now     func() time.Time
	columns bool // column definitions already sent
	err     error
}

var (
	framePrefix = []byte(`{"type":"`)
	frameMiddle = []byte(`","object":`)
	frameSuffix = []byte("}\n")
)

// write sends one event. obj is the encoded object, shared by every watcher.
func (f *frameWriter) write(typ string, obj []byte) {
	if f.err != nil {
		return
	}
	if typ == api.Added || typ == api.Modified || typ == api.Deleted {
		if b, err := f.req.convertJSON(obj); err == nil {
			obj = b
		}
	}
	if f.out.table {
		obj = f.tableRow(obj)
	}
	for _, b := range [][]byte{framePrefix, []byte(typ), frameMiddle, obj, frameSuffix} {
		if _, err := f.w.Write(b); err != nil {
			f.err = err
			return
		}
	}
}

// tableRow renders an object as a one-row Table; only the first frame carries column definitions.
func (f *frameWriter) tableRow(obj []byte) []byte {
	o, err := api.Decode(obj)
	if err != nil {
		return obj
	}
	t := api.Table{
		TypeMeta: api.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "Table"},
		Metadata: api.ListMeta{ResourceVersion: o.ResourceVersion()},
		Rows:     []api.TableRow{{Cells: printers.ResourceRow(f.req.res, o, f.now()), Object: rowObject(o, f.out.includeObject)}},
	}
	if !f.columns {
		t.ColumnDefinitions, f.columns = printers.ResourceColumns(f.req.res), true
	}
	b, _ := json.Marshal(t)
	return b
}

// bookmark sends a BOOKMARK at rev; initialEnd marks the end of a streaming list's initial events.
func (f *frameWriter) bookmark(rev int64, initialEnd bool) {
	meta := map[string]any{"resourceVersion": strconv.FormatInt(rev, 10), "creationTimestamp": nil}
	if initialEnd {
		meta["annotations"] = map[string]any{api.InitialEventsEndAnnotation: "true"}
	}
	b, _ := json.Marshal(map[string]any{"kind": f.req.res.Kind, "apiVersion": f.req.res.GroupVersion(), "metadata": meta})
	out := f.out
	f.out.table = false
	f.write(api.Bookmark, b)
	f.out = out
}

// status sends an ERROR frame.
func (f *frameWriter) status(se *apierrors.StatusError) {
	b, _ := json.Marshal(se.Status)
	out := f.out
	f.out.table = false
	f.write(api.Error, b)
	f.out = out
}

func (f *frameWriter) flush() error {
	if f.err != nil {
		return f.err
	}
	f.err = f.rc.Flush()
	return f.err
}
