package endpoints

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/capstan-io/capstan/apiserver/api"
)

// Objects are stored with "metadata" as their first key and without a
// resourceVersion, which etcd owns (it is the key's ModRevision). That layout
// lets reads stamp the resourceVersion by splicing bytes instead of decoding
// and re-encoding every object, which is most of the cost of a large list.
var metaPrefix = []byte(`{"metadata":{`)

// encodeForStorage encodes o with metadata first and without its resourceVersion.
func encodeForStorage(o api.Object) ([]byte, error) {
	meta := o.Meta()
	rv, had := meta["resourceVersion"]
	delete(meta, "resourceVersion")
	defer func() {
		if had {
			meta["resourceVersion"] = rv
		}
	}()
	mb, err := json.Marshal(meta)
	if err != nil {
		return nil, err
	}
	delete(o, "metadata")
	rest, err := json.Marshal(o)
	o["metadata"] = meta
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.Grow(len(mb) + len(rest) + 16)
	buf.WriteString(`{"metadata":`)
	buf.Write(mb)
	if len(rest) > 2 { // rest is "{...}"; "{}" adds nothing
		buf.WriteByte(',')
		buf.Write(rest[1:])
	} else {
		buf.WriteByte('}')
	}
	return buf.Bytes(), nil
}

// WithResourceVersion returns the stored object as JSON with its resourceVersion
// set to rev. Values not in the stored layout are decoded and re-encoded.
func WithResourceVersion(stored []byte, rev int64) ([]byte, error) {
	if bytes.HasPrefix(stored, metaPrefix) && len(stored) > len(metaPrefix) && stored[len(metaPrefix)] != '}' {
		out := make([]byte, 0, len(stored)+40)
		out = append(out, metaPrefix...)
		out = append(out, `"resourceVersion":"`...)
		out = strconv.AppendInt(out, rev, 10)
		out = append(out, `",`...)
		return append(out, stored[len(metaPrefix):]...), nil
	}
	o, err := decodeStored(stored, rev)
	if err != nil {
		return nil, err
	}
	return json.Marshal(o)
}

// EncodeForStorage encodes o in the stored layout, for writers outside the
// request path (the CRD controller's status updates).
func EncodeForStorage(o api.Object) ([]byte, error) { return encodeForStorage(o) }
