package schema

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/capstan-io/capstan/admission"
	"github.com/capstan-io/capstan/apiserver/api"
)

// Kind identifies a schema: group, version and kind.
type Kind struct{ Group, Version, Kind string }

func (k Kind) String() string { return api.SchemaName(k.Group, k.Version, k.Kind) }

// entry is one compiled schema with its decoded document. A built-in
// kind's is compiled on first use (load): compiling every built-in schema
// up front was most of a server's start-up time.
type entry struct {
	doc      *doc
	compiled *jsonschema.Schema
	// builtin kinds fail wrong JSON types while decoding (400), as Kubernetes'
	// typed decoder does; custom resources fail them in validation (422).
	builtin bool

	kind Kind
	raw  []byte // the document, until compiled
	once sync.Once
	err  error
}

// load compiles a lazily built entry once; later calls return the result.
func (e *entry) load() error {
	e.once.Do(func() {
		if e.raw == nil {
			return
		}
		e.doc, e.compiled, e.err = compile(e.kind, e.raw)
		e.raw = nil
	})
	return e.err
}

// Set holds the compiled schema of every kind that has one.
type Set struct {
	mu      sync.RWMutex
	entries map[Kind]*entry
}

// builtinCache holds the compiled built-in schemas, Kind → *entry. They are
// embedded and never change, so each is compiled once per process however
// many servers (tests start many) build a Set; compiled schemas are immutable.
var builtinCache sync.Map

// NewBuiltin returns a Set with the schema of every built-in kind in rs that has one.
func NewBuiltin(rs []*api.Resource) (*Set, error) {
	s := &Set{entries: map[Kind]*entry{}}
	for _, r := range rs {
		k := Kind{r.Group, r.Version, r.Kind}
		if e, ok := builtinCache.Load(k); ok {
			s.entries[k] = e.(*entry)
			continue
		}
		b, ok := api.BuiltinSchema(r.Group, r.Version, r.Kind)
		if !ok {
			continue
		}
		e, _ := builtinCache.LoadOrStore(k, &entry{kind: k, raw: b, builtin: true})
		s.entries[k] = e.(*entry)
	}
	return s, nil
}

// CompileAll compiles every schema not compiled yet, reporting the first
// error: a test's check that the embedded schemas compile.
func (s *Set) CompileAll() error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, e := range s.entries {
		if err := e.load(); err != nil {
			return err
		}
	}
	return nil
}

// Add compiles a schema document for k, replacing any earlier one.
func (s *Set) Add(k Kind, b []byte, builtin bool) error {
	d, compiled, err := compile(k, b)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.entries[k] = &entry{doc: d, compiled: compiled, builtin: builtin}
	return nil
}

// Check reports whether a schema document for k compiles, without adding it.
func Check(k Kind, b []byte) error {
	_, _, err := compile(k, b)
	return err
}

func compile(k Kind, b []byte) (*doc, *jsonschema.Schema, error) {
	d, err := parseDoc(b)
	if err != nil {
		return nil, nil, fmt.Errorf("schema %s: %w", k, err)
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	url := "https://capstan.io/schemas/" + k.String()
	if err := c.AddResource(url, bytes.NewReader(b)); err != nil {
		return nil, nil, fmt.Errorf("schema %s: %w", k, err)
	}
	compiled, err := c.Compile(url)
	if err != nil {
		return nil, nil, fmt.Errorf("compiling schema %s: %w", k, err)
	}
	return d, compiled, nil
}

// Remove forgets the schema of k.
func (s *Set) Remove(k Kind) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.entries, k)
}

// lookup returns r's compiled schema, nil if it has none.
func (s *Set) lookup(r *api.Resource) (*entry, error) {
	if r == nil {
		return nil, nil
	}
	s.mu.RLock()
	e, ok := s.entries[Kind{r.Group, r.Version, r.Kind}]
	s.mu.RUnlock()
	if !ok {
		return nil, nil
	}
	if err := e.load(); err != nil {
		return nil, admission.Internal(err.Error())
	}
	return e, nil
}

// Decode is the mutating plugin that checks JSON types and handles unknown fields.
func (s *Set) Decode() admission.Mutator {
	return admission.MutatorFunc{PluginName: "SchemaDecode", Fn: s.decode}
}

// Validate is the validating plugin that checks the object against its schema.
func (s *Set) Validate() admission.Validator {
	return admission.ValidatorFunc{PluginName: "SchemaValidation", Fn: s.validate}
}

func (s *Set) decode(_ context.Context, a *admission.Attributes) error {
	e, err := s.lookup(a.Resource)
	if e == nil || a.Object == nil || a.Subresource == "scale" {
		return err
	}
	w := &walker{d: e.doc, checkTypes: e.builtin, at: make([]step, 0, 16)}
	w.walk(map[string]any(a.Object), e.doc.deref(e.doc.root))
	w.res.sorted()
	if len(w.res.wrong) > 0 {
		t := w.res.wrong[0]
		var errs field.ErrorList
		for _, t := range w.res.wrong {
			errs = append(errs, field.TypeInvalid(t.path, nil, "must be of type "+t.want))
		}
		kind := a.Resource.Kind
		return admission.BadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: json: cannot unmarshal %s into Go struct field %s of type %s",
			kind, a.Resource.Version, kind, goType(t.got), t.path, t.want), errs)
	}
	if len(w.res.unknown) == 0 {
		return nil
	}
	switch a.FieldValidation {
	case admission.Strict:
		msgs := make([]string, len(w.res.unknown))
		for i, u := range w.res.unknown {
			msgs[i] = fmt.Sprintf("unknown field %q", u)
		}
		return admission.BadRequest("strict decoding error: "+admission.JoinMessages(msgs), nil)
	case admission.Ignore:
	default:
		for _, u := range w.res.unknown {
			a.AddWarning(fmt.Sprintf("unknown field %q", u))
		}
	}
	return nil
}

func (s *Set) validate(_ context.Context, a *admission.Attributes) error {
	e, err := s.lookup(a.Resource)
	if e == nil || a.Object == nil || a.Subresource == "scale" {
		return err
	}
	obj := map[string]any(a.Object)
	if e.doc.prechecked && e.doc.precheck(obj, e.doc.deref(e.doc.root)) {
		return nil // the library would find nothing either
	}
	err = e.compiled.Validate(obj)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return fmt.Errorf("validating against schema: %w", err)
	}
	return admission.Invalid(fieldErrors(e.doc, a.Object, ve))
}

// fieldErrors turns the leaves of a validation error into Kubernetes field errors,
// one per problem, in field order.
func fieldErrors(d *doc, obj api.Object, ve *jsonschema.ValidationError) field.ErrorList {
	var leaves []*jsonschema.ValidationError
	var collect func(v *jsonschema.ValidationError)
	collect = func(v *jsonschema.ValidationError) {
		if len(v.Causes) == 0 {
			leaves = append(leaves, v)
			return
		}
		for _, c := range v.Causes {
			collect(c)
		}
	}
	collect(ve)
	seen := map[string]bool{}
	var errs field.ErrorList
	for _, l := range leaves {
		for _, fe := range leafErrors(d, obj, l) {
			key := fe.Error()
			if !seen[key] {
				seen[key] = true
				errs = append(errs, fe)
			}
		}
	}
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Field < errs[j].Field })
	return errs
}

func leafErrors(d *doc, obj api.Object, l *jsonschema.ValidationError) field.ErrorList {
	_, kwPtr, _ := strings.Cut(l.AbsoluteKeywordLocation, "#")
	keyword := kwPtr[strings.LastIndex(kwPtr, "/")+1:]
	kwValue := d.value(kwPtr)
	path, value := instancePath(d, obj, l.InstanceLocation)
	value = plain(value)
	switch keyword {
	case "minimum":
		return field.ErrorList{field.Invalid(path, value, fmt.Sprintf("must be greater than or equal to %v", kwValue))}
	case "maximum":
		return field.ErrorList{field.Invalid(path, value, fmt.Sprintf("must be less than or equal to %v", kwValue))}
	case "exclusiveMinimum":
		return field.ErrorList{field.Invalid(path, value, fmt.Sprintf("must be greater than %v", kwValue))}
	case "exclusiveMaximum":
		return field.ErrorList{field.Invalid(path, value, fmt.Sprintf("must be less than %v", kwValue))}
	case "enum":
		var vals []string
		for _, v := range asSlice(kwValue) {
			vals = append(vals, fmt.Sprint(v))
		}
		return field.ErrorList{field.NotSupported(path, value, vals)}
	case "pattern":
		return field.ErrorList{field.Invalid(path, value, fmt.Sprintf("should match '%v'", kwValue))}
	case "minLength":
		return field.ErrorList{field.Invalid(path, value, fmt.Sprintf("should be at least %v chars long", kwValue))}
	case "maxLength":
		return field.ErrorList{field.TooLong(path, "", toInt(kwValue))}
	case "minItems":
		return field.ErrorList{field.Invalid(path, value, fmt.Sprintf("should have at least %v items", kwValue))}
	case "maxItems":
		return field.ErrorList{field.TooMany(path, len(asSlice(value)), toInt(kwValue))}
	case "required":
		m, _ := value.(map[string]any)
		var errs field.ErrorList
		for _, r := range asSlice(kwValue) {
			name := fmt.Sprint(r)
			if _, ok := m[name]; !ok {
				errs = append(errs, field.Required(path.Child(name), ""))
			}
		}
		return errs
	case "type":
		return field.ErrorList{field.TypeInvalid(path, value, "must be of type "+typeList(kwValue))}
	}
	return field.ErrorList{field.Invalid(path, value, l.Message)}
}
