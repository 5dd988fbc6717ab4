package meta

import (
	"strconv"
	"strings"

	"github.com/capstan-io/capstan/apiserver/api"
)

// Selector is a metav1.LabelSelector: matchLabels and matchExpressions.
type Selector struct {
	MatchLabels map[string]string
	Exprs       []Requirement
}

// Requirement is one matchExpressions entry.
type Requirement struct {
	Key, Operator string
	Values        []string
}

// ParseSelector reads a LabelSelector map (nil matches nothing, as a nil
// selector does in Kubernetes workload controllers).
func ParseSelector(m map[string]any) (*Selector, bool) {
	if m == nil {
		return nil, false
	}
	s := &Selector{MatchLabels: map[string]string{}}
	if ml, ok := m["matchLabels"].(map[string]any); ok {
		for k, v := range ml {
			s.MatchLabels[k], _ = v.(string)
		}
	}
	for _, e := range api.NestedSlice(m, "matchExpressions") {
		em, ok := e.(map[string]any)
		if !ok {
			continue
		}
		r := Requirement{}
		r.Key, _ = em["key"].(string)
		r.Operator, _ = em["operator"].(string)
		for _, v := range api.NestedSlice(em, "values") {
			sv, _ := v.(string)
			r.Values = append(r.Values, sv)
		}
		s.Exprs = append(s.Exprs, r)
	}
	return s, len(s.MatchLabels) > 0 || len(s.Exprs) > 0
}

// Matches reports whether labels satisfy every term of s.
func (s *Selector) Matches(labels map[string]string) bool {
	if s == nil {
		return false
	}
	for k, v := range s.MatchLabels {
		if lv, ok := labels[k]; !ok || lv != v {
			return false
		}
	}
	for _, r := range s.Exprs {
		v, has := labels[r.Key]
		in := false
		for _, x := range r.Values {
			in = in || x == v
		}
		switch r.Operator {
		case "In":
			if !has || !in {
				return false
			}
		case "NotIn":
			if has && in {
				return false
			}
		case "Exists":
			if !has {
				return false
			}
		case "DoesNotExist":
			if has {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// String is the selector in the labelSelector query form (matchLabels and
// set-based terms), as kubectl prints it.
func (s *Selector) String() string {
	var parts []string
	for k, v := range s.MatchLabels {
		parts = append(parts, k+"="+v)
	}
	for _, r := range s.Exprs {
		switch r.Operator {
		case "In", "NotIn":
			parts = append(parts, r.Key+" "+strings.ToLower(r.Operator)+" ("+strings.Join(r.Values, ",")+")")
		case "Exists":
			parts = append(parts, r.Key)
		case "DoesNotExist":
			parts = append(parts, "!"+r.Key)
		}
	}
	return strings.Join(parts, ",")
}

// Int32 reads an integer field with a default for a missing one.
func Int32(o map[string]any, def int64, fields ...string) int64 {
	v := api.Nested(o, fields...)
	if v == nil {
		return def
	}
	return api.Int64(v)
}

// IntOrPercent resolves an IntOrString such as maxSurge against total,
// rounding up or down.
func IntOrPercent(v any, def string, total int64, roundUp bool) int64 {
	if v == nil {
		v = def
	}
	s, ok := v.(string)
	if !ok {
		return api.Int64(v)
	}
	if !strings.HasSuffix(s, "%") {
		n, _ := strconv.ParseInt(s, 10, 64)
		return n
	}
	p, _ := strconv.ParseInt(strings.TrimSuffix(s, "%"), 10, 64)
	if roundUp {
		return (p*total + 99) / 100
	}
	return p * total / 100
}
