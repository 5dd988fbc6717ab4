package deployment

import (
	"encoding/json"
	"hash/fnv"
	"sort"
	"strconv"
	"time"
)

// RS is what planning needs to know about one ReplicaSet.
type RS struct {
	Name      string
	Replicas  int64 // spec.replicas
	Available int64 // status.availableReplicas
	Revision  int64
	Created   time.Time
}

// Strategy is a resolved RollingUpdate strategy.
type Strategy struct {
	Replicas, MaxSurge, MaxUnavailable int64
}

// Rolling returns the next scale of the new ReplicaSet and of each old one
// (by name) for one step of a rolling update. At most replicas+maxSurge
// pods are asked for and old pods are removed only while
// replicas-maxUnavailable stay available.
func Rolling(s Strategy, newRS RS, olds []RS) (newScale int64, oldScales map[string]int64) {
	total := newRS.Replicas
	for _, o := range olds {
		total += o.Replicas
	}
	// Scale the new ReplicaSet up within the surge budget, or down to size.
	newScale = newRS.Replicas
	switch {
	case newRS.Replicas > s.Replicas:
		newScale = s.Replicas
	case newRS.Replicas < s.Replicas:
		if up := s.Replicas + s.MaxSurge - total; up > 0 {
			newScale = min(newRS.Replicas+up, s.Replicas)
		}
	}
	oldScales = map[string]int64{}
	for _, o := range olds {
		oldScales[o.Name] = o.Replicas
	}
	// Scale old ReplicaSets down as far as availability allows: first their
	// unavailable pods (they cost nothing), then available ones, oldest first.
	minAvailable := s.Replicas - s.MaxUnavailable
	newUnavailable := max(newRS.Replicas-newRS.Available, 0)
	budget := total - minAvailable - newUnavailable
	sorted := append([]RS(nil), olds...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Created.Before(sorted[j].Created) })
	for _, o := range sorted {
		if budget <= 0 {
			break
		}
		unavailable := max(o.Replicas-o.Available, 0)
		cut := min(unavailable, budget)
		oldScales[o.Name] -= cut
		budget -= cut
	}
	available := newRS.Available
	for _, o := range olds {
		available += min(o.Available, oldScales[o.Name])
	}
	budget = available - minAvailable
	for _, o := range sorted {
		if budget <= 0 {
			break
		}
		cut := min(oldScales[o.Name], budget)
		oldScales[o.Name] -= cut
		budget -= cut
	}
	return newScale, oldScales
}

// Recreate returns the scales for one step of a Recreate rollout: old
// ReplicaSets go to zero, and the new one is scaled up only once no old pod
// is left (oldPods counts active pods of old ReplicaSets).
func Recreate(replicas int64, newRS RS, olds []RS, oldPods int) (newScale int64, oldScales map[string]int64) {
	oldScales = map[string]int64{}
	for _, o := range olds {
		oldScales[o.Name] = 0
	}
	if oldPods > 0 {
		return newRS.Replicas, oldScales
	}
	return replicas, oldScales
}

// Hash is the pod-template-hash of a template: a stable FNV-32a of its JSON
// (map keys sorted) and the collision count, in the safe alphabet
// Kubernetes uses for generated names.
func Hash(template map[string]any, collisionCount int64) string {
	b, _ := json.Marshal(template)
	h := fnv.New32a()
	h.Write(b)
	if collisionCount > 0 {
		h.Write([]byte(strconv.FormatInt(collisionCount, 10)))
	}
	return safeEncode(strconv.FormatUint(uint64(h.Sum32()), 10))
}

// safeEncode maps digits to consonants and safe digits, as
// k8s.io/apimachinery/pkg/util/rand.SafeEncodeString does.
func safeEncode(s string) string {
	const alphanums = "bcdfghjklmnpqrstvwxz2456789"
	r := []byte(s)
	for i, b := range r {
		r[i] = alphanums[int(b)%len(alphanums)]
	}
	return string(r)
}
