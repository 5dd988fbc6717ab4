package rules

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/capstan-io/capstan/admission"
	"github.com/capstan-io/capstan/apiserver/api"
)

// CRDLister lists the stored CustomResourceDefinitions, for the check that a
// new or changed CRD claims no name another one holds.
type CRDLister interface {
	ListCRDs(ctx context.Context) ([]api.Object, error)
}

// CRDListerFunc adapts a function to CRDLister.
type CRDListerFunc func(ctx context.Context) ([]api.Object, error)

// ListCRDs calls f.
func (f CRDListerFunc) ListCRDs(ctx context.Context) ([]api.Object, error) { return f(ctx) }

// NameConflict is one name of a CRD that is already in use in its group.
type NameConflict struct {
	// Field is the name's path in the CRD, such as spec.names.shortNames[1].
	Field *field.Path
	// Value is the name.
	Value string
	// Owner says who holds it: `CustomResourceDefinition "gadgets.example.com"`
	// or `the built-in resource "leases.coordination.k8s.io"`.
	Owner string
	// Reason is the NamesAccepted condition's reason Kubernetes uses for it:
	// PluralConflict, SingularConflict, ShortNamesConflict, KindConflict or
	// ListKindConflict.
	Reason string
}

// Message is the conflict as the NamesAccepted condition states it.
func (c NameConflict) Message() string {
	return fmt.Sprintf("%q is already in use by %s", c.Value, c.Owner)
}

// CRDNames are the names a CRD claims in its group, defaulted as Kubernetes
// defaults them (singular: the lower-case kind; listKind: kind + "List").
type CRDNames struct {
	Group, Plural, Singular, Kind, ListKind string
	ShortNames                              []string
}

// NamesOf reads the names a CRD claims.
func NamesOf(crd api.Object) CRDNames {
	n := CRDNames{
		Group:    api.NestedString(crd, "spec", "group"),
		Plural:   api.NestedString(crd, "spec", "names", "plural"),
		Singular: api.NestedString(crd, "spec", "names", "singular"),
		Kind:     api.NestedString(crd, "spec", "names", "kind"),
		ListKind: api.NestedString(crd, "spec", "names", "listKind"),
	}
	for _, s := range api.NestedSlice(crd, "spec", "names", "shortNames") {
		if s, ok := s.(string); ok {
			n.ShortNames = append(n.ShortNames, s)
		}
	}
	if n.Singular == "" {
		n.Singular = strings.ToLower(n.Kind)
	}
	if n.ListKind == "" && n.Kind != "" {
		n.ListKind = n.Kind + "List"
	}
	return n
}

// claims indexes who holds each resource name and kind of one group.
type claims struct {
	resources, kinds map[string]string // name → owner
}

func (c *claims) add(owner string, resources []string, kinds ...string) {
	for _, r := range resources {
		if _, ok := c.resources[r]; !ok && r != "" {
			c.resources[r] = owner
		}
	}
	for _, k := range kinds {
		if _, ok := c.kinds[k]; !ok && k != "" {
			c.kinds[k] = owner
		}
	}
}

// CRDNameConflicts reports the names of crd that a built-in resource of its
// group, or one of others (CRDs of any group; crd itself, by name, is
// skipped), already uses: its plural, singular and short names against their
// plurals, singulars and short names, its kind and list kind against their
// kinds and list kinds. Kubernetes' naming controller compares the same sets.
func CRDNameConflicts(crd api.Object, others []api.Object) []NameConflict {
	n := NamesOf(crd)
	c := claims{resources: map[string]string{}, kinds: map[string]string{}}
	for _, r := range api.Builtin() {
		if r.Group != n.Group {
			continue
		}
		owner := fmt.Sprintf("the built-in resource %q", r.GroupResource())
		c.add(owner, append([]string{r.Name, r.Singular}, r.ShortNames...), r.Kind, r.ListKind())
	}
	for _, o := range others {
		on := NamesOf(o)
		if on.Group != n.Group || o.Name() == crd.Name() {
			continue
		}
		owner := fmt.Sprintf("CustomResourceDefinition %q", o.Name())
		c.add(owner, append([]string{on.Plural, on.Singular}, on.ShortNames...), on.Kind, on.ListKind)
	}
	names := field.NewPath("spec", "names")
	var out []NameConflict
	check := func(set map[string]string, p *field.Path, v, reason string) {
		if owner, ok := set[v]; ok && v != "" {
			out = append(out, NameConflict{Field: p, Value: v, Owner: owner, Reason: reason})
		}
	}
	check(c.resources, names.Child("plural"), n.Plural, "PluralConflict")
	check(c.resources, names.Child("singular"), n.Singular, "SingularConflict")
	for i, s := range n.ShortNames {
		check(c.resources, names.Child("shortNames").Index(i), s, "ShortNamesConflict")
	}
	check(c.kinds, names.Child("kind"), n.Kind, "KindConflict")
	check(c.kinds, names.Child("listKind"), n.ListKind, "ListKindConflict")
	return out
}

// crdNameRules refuses a CRD whose names conflict with a built-in resource
// or another CRD of its group, as a 422 with one cause per name. Kubernetes
// accepts such a CRD and reports NamesAccepted=False; Capstan refuses it at
// the door, and its CRD controller still sets NamesAccepted=False should two
// servers admit conflicting CRDs at the same moment.
func crdNameRules(ctx context.Context, lister CRDLister, a *admission.Attributes) (field.ErrorList, error) {
	if lister == nil || a.Subresource != "" {
		return nil, nil
	}
	others, err := lister.ListCRDs(ctx)
	if err != nil {
		return nil, admission.Internal(fmt.Sprintf("listing CustomResourceDefinitions to check names: %v", err))
	}
	held := map[string]bool{} // names the CRD held before this update keep their standing
	if a.OldObject != nil {
		on := NamesOf(a.OldObject)
		for _, s := range append([]string{on.Plural, on.Singular, on.Kind, on.ListKind}, on.ShortNames...) {
			held[s] = true
		}
	}
	var errs field.ErrorList
	for _, c := range CRDNameConflicts(a.Object, others) {
		if held[c.Value] {
			continue
		}
		errs = append(errs, field.Invalid(c.Field, c.Value, "is already in use by "+c.Owner))
	}
	return errs, nil
}
