package endpoints

import (
	"fmt"
	"net/url"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/apiserver/internal/broadcast"
)

// filter is a request's label and field selectors.
type filter struct {
	label labels.Selector
	field fields.Selector
}

func parseFilter(q url.Values, req *request) (*filter, error) {
	f := &filter{label: labels.Everything(), field: fields.Everything()}
	var err error
	if s := q.Get("labelSelector"); s != "" {
		if f.label, err = labels.Parse(s); err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("unable to parse requirement: %v", err))
		}
	}
	if s := q.Get("fieldSelector"); s != "" {
		if f.field, err = fields.ParseSelector(s); err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid field selector: %v", err))
		}
		for _, r := range f.field.Requirements() {
			if !req.strat.SupportsField(r.Field) {
				return nil, apierrors.NewBadRequest(fmt.Sprintf("field label not supported: %s", r.Field))
			}
		}
	}
	return f, nil
}

func (f *filter) empty() bool { return f.label.Empty() && f.field.Empty() }

// match tests labels and field values.
func (f *filter) match(l, fs map[string]string) bool {
	return f.label.Matches(labels.Set(l)) && f.field.Matches(fields.Set(fs))
}

// matchObject tests an object as decoded.
func (f *filter) matchObject(req *request, o api.Object) bool {
	if f.empty() {
		return true
	}
	return f.match(o.Labels(), req.strat.FieldSet(o))
}

// matchBroadcast tests an object as the watch hub holds it.
func (f *filter) matchBroadcast(o *broadcast.Object) bool {
	if o == nil {
		return false
	}
	return f.match(o.Labels, o.Fields)
}
