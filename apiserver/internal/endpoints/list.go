package endpoints

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/storage"
)

// continueToken is the opaque position of the next page, as Kubernetes encodes it.
type continueToken struct {
	APIVersion string `json:"v"`
	RV         int64  `json:"rv"`
	Start      string `json:"start"`
}

func encodeContinue(rev int64, nextKey, prefix string) string {
	b, _ := json.Marshal(continueToken{APIVersion: "meta.k8s.io/v1", RV: rev, Start: strings.TrimPrefix(nextKey, prefix)})
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeContinue(s, prefix string) (continueToken, error) {
	var t continueToken
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		err = json.Unmarshal(b, &t)
	}
	if err != nil || t.APIVersion != "meta.k8s.io/v1" || t.RV <= 0 || strings.Contains(t.Start, "..") {
		return t, apierrors.NewBadRequest("continue key is not valid: malformed token")
	}
	t.Start = prefix + t.Start
	return t, nil
}

// listParams are a list's query parameters, parsed.
type listParams struct {
	rev       int64 // read at this revision (0: latest)
	minRev    int64 // the result must be at least this new
	limit     int64
	start     string
	filter    *filter
	continued bool
}

func parseListParams(r *http.Request, req *request) (*listParams, error) {
	q := r.URL.Query()
	p := &listParams{}
	var err error
	if p.filter, err = parseFilter(q, req); err != nil {
		return nil, err
	}
	if s := q.Get("limit"); s != "" {
		if p.limit, err = strconv.ParseInt(s, 10, 64); err != nil || p.limit < 0 {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid limit %q", s))
		}
	}
	rv, rvm := q.Get("resourceVersion"), q.Get("resourceVersionMatch")
	var n int64
	if rv != "" {
		if n, err = strconv.ParseInt(rv, 10, 64); err != nil || n < 0 {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid resource version %q", rv))
		}
	}
	if c := q.Get("continue"); c != "" {
		if rv != "" && rv != "0" {
			return nil, apierrors.NewBadRequest("specifying resource version is not allowed when using continue")
		}
		t, err := decodeContinue(c, req.prefix())
		if err != nil {
			return nil, err
		}
		p.rev, p.start, p.continued = t.RV, t.Start, true
		return p, nil
	}
	switch rvm {
	case "":
		p.minRev = n
	case "Exact":
		if n == 0 {
			return nil, apierrors.NewBadRequest("resourceVersionMatch=Exact requires a non-zero resourceVersion")
		}
		p.rev = n
	case "NotOlderThan":
		if rv == "" {
			return nil, apierrors.NewBadRequest("resourceVersionMatch=NotOlderThan requires a resourceVersion")
		}
		p.minRev = n
	default:
		return nil, apierrors.NewBadRequest(fmt.Sprintf("unsupported resourceVersionMatch %q", rvm))
	}
	return p, nil
}

// listResult is one page of matching objects.
type listResult struct {
	items     []storage.KeyValue
	rev       int64
	next      string // key to continue from, if more remain
	remaining *int64
}

// collect reads matching objects page by page until the limit is filled.
func (h *Handler) collect(r *http.Request, req *request, p *listParams) (*listResult, error) {
	out := &listResult{rev: p.rev}
	start := p.start
	for {
		batch := p.limit
		if batch > 0 && !p.filter.empty() {
			batch = max(batch, 500) // read ahead when a selector may skip keys
		}
		res, err := h.cfg.Store.List(r.Context(), req.prefix(), storage.ListOptions{Revision: out.rev, Limit: batch, Start: start})
		if err != nil {
			if errors.Is(err, storage.ErrCompacted) {
				if p.continued {
					return nil, apierrors.NewResourceExpired("The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.")
				}
				return nil, apierrors.NewResourceExpired(fmt.Sprintf("The resourceVersion for the provided list is too old: %d", p.rev))
			}
			if errors.Is(err, storage.ErrFutureRev) {
				return nil, apierrors.NewTimeout(fmt.Sprintf("Too large resource version: %d, current: unknown", p.rev))
			}
			return nil, err
		}
		out.rev = res.Revision
		if p.rev > 0 {
			out.rev = p.rev
		}
		for i, kv := range res.Items {
			if !p.filter.empty() {
				o, err := decodeStored(kv.Value, kv.ModRevision)
				if err != nil {
					h.cfg.Log.Error("skipping undecodable object", "key", kv.Key, "err", err)
					continue
				}
				if !p.filter.matchObject(req, o) {
					continue
				}
			}
			out.items = append(out.items, kv)
			if p.limit > 0 && int64(len(out.items)) == p.limit {
				if i < len(res.Items)-1 || res.More {
					out.next = kv.Key + "\x00"
					if p.filter.empty() {
						rem := res.Remaining + int64(len(res.Items)-1-i)
						out.remaining = &rem
					}
				}
				return out, nil
			}
		}
		if !res.More || len(res.Items) == 0 {
			return out, nil
		}
		start = res.Items[len(res.Items)-1].Key + "\x00"
	}
}

func (h *Handler) list(r *http.Request, req *request) (any, error) {
	out, err := negotiate(r)
	if err != nil {
		return nil, err
	}
	p, err := parseListParams(r, req)
	if err != nil {
		return nil, err
	}
	res, err := h.collect(r, req, p)
	if err != nil {
		return nil, err
	}
	if p.minRev > res.rev {
		return nil, apierrors.NewTimeout(fmt.Sprintf("Too large resource version: %d, current: %d", p.minRev, res.rev))
	}
	cont := ""
	if res.next != "" {
		cont = encodeContinue(res.rev, res.next, req.prefix())
	}
	if out.table {
		objs, err := decodeAll(res.items)
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			req.fromStorage(o)
		}
		t := h.table(req.res, objs, strconv.FormatInt(res.rev, 10), out)
		t.Metadata.Continue, t.Metadata.RemainingItemCount = cont, res.remaining
		return t, nil
	}
	list := api.List{
		TypeMeta: api.TypeMeta{APIVersion: req.res.GroupVersion(), Kind: req.res.ListKind()},
		Metadata: api.ListMeta{ResourceVersion: strconv.FormatInt(res.rev, 10), Continue: cont, RemainingItemCount: res.remaining},
		Items:    make([]json.RawMessage, 0, len(res.items)),
	}
	for _, kv := range res.items {
		b, err := WithResourceVersion(kv.Value, kv.ModRevision)
		if err == nil {
			b, err = req.convertJSON(b)
		}
		if err != nil {
			return nil, err
		}
		list.Items = append(list.Items, b)
	}
	return encodeList(list)
}

// encodeList encodes a list with its items as they are. They are this
// server's own encoding (from storage, with the resourceVersion spliced in),
// so they need none of the validating and compacting json.Marshal gives a
// json.RawMessage, which was most of the CPU of a large list.
func encodeList(l api.List) (rawJSON, error) {
	head, err := json.Marshal(struct {
		api.TypeMeta
		Metadata api.ListMeta `json:"metadata"`
	}{l.TypeMeta, l.Metadata})
	if err != nil {
		return nil, err
	}
	n := len(head) + len(`,"items":[]`) + len(l.Items)
	for _, it := range l.Items {
		n += len(it)
	}
	b := make([]byte, 0, n)
	b = append(b, head[:len(head)-1]...) // without its closing brace
	b = append(b, `,"items":[`...)
	for i, it := range l.Items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it...)
	}
	return append(b, ']', '}'), nil
}

// decodeAll decodes listed objects.
func decodeAll(kvs []storage.KeyValue) ([]api.Object, error) {
	out := make([]api.Object, 0, len(kvs))
	for _, kv := range kvs {
		o, err := decodeStored(kv.Value, kv.ModRevision)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}
