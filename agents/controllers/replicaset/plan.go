package replicaset

import (
	"sort"
	"time"

	"github.com/capstan-io/capstan/agents/controllers/meta"
	"github.com/capstan-io/capstan/apiserver/api"
)

// Claim splits the pods of a namespace into those rs controls, those it
// should adopt (orphans its selector matches) and those it should release
// (controlled by rs but no longer matched). A ReplicaSet being deleted
// neither adopts nor releases.
func Claim(rs api.Object, pods []api.Object) (owned, adopt, release []api.Object) {
	sel, ok := meta.ParseSelector(api.NestedMap(rs, "spec", "selector"))
	for _, p := range pods {
		ref, hasRef := meta.ControllerRef(p)
		matches := ok && sel.Matches(p.Labels())
		switch {
		case hasRef && ref.UID == rs.UID():
			if matches || meta.Deleting(rs) {
				owned = append(owned, p)
			} else if !meta.Deleting(p) {
				release = append(release, p)
			}
		case !hasRef && matches && !meta.Deleting(rs) && !meta.Deleting(p) && meta.PodActive(p):
			adopt = append(adopt, p)
		}
	}
	return owned, adopt, release
}

// Diff compares the active pods rs owns with spec.replicas: a positive
// create is how many pods to add; del lists the pods to remove, best
// candidates first.
func Diff(rs api.Object, owned []api.Object) (create int, del []api.Object) {
	want := int(meta.Int32(rs, 1, "spec", "replicas"))
	var active []api.Object
	for _, p := range owned {
		if meta.PodActive(p) {
			active = append(active, p)
		}
	}
	if len(active) < want {
		return want - len(active), nil
	}
	if len(active) == want {
		return 0, nil
	}
	RankForDeletion(active)
	return 0, active[:len(active)-want]
}

// RankForDeletion orders pods so that the ones to delete first come first:
// unscheduled before scheduled, pending before running, not ready before
// ready, and newer before older, as the Kubernetes ReplicaSet controller does.
func RankForDeletion(pods []api.Object) {
	phaseRank := map[string]int{"Pending": 0, "Unknown": 1, "Running": 2}
	sort.SliceStable(pods, func(i, j int) bool {
		a, b := pods[i], pods[j]
		an, bn := api.NestedString(a, "spec", "nodeName") != "", api.NestedString(b, "spec", "nodeName") != ""
		if an != bn {
			return !an
		}
		ap, bp := phaseRank[api.NestedString(a, "status", "phase")], phaseRank[api.NestedString(b, "status", "phase")]
		if ap != bp {
			return ap < bp
		}
		ar, _ := meta.PodReady(a)
		br, _ := meta.PodReady(b)
		if ar != br {
			return !ar
		}
		return meta.CreationTime(a).After(meta.CreationTime(b))
	})
}

// Status computes the status of rs from the pods it owns. requeue is how long
// until a ready pod becomes available under minReadySeconds (0 for none).
func Status(rs api.Object, owned []api.Object, now time.Time) (status map[string]any, requeue time.Duration) {
	minReady := time.Duration(meta.Int32(rs, 0, "spec", "minReadySeconds")) * time.Second
	tmplLabels := map[string]string{}
	for k, v := range api.NestedMap(rs, "spec", "template", "metadata", "labels") {
		tmplLabels[k], _ = v.(string)
	}
	var replicas, labeled, ready, available int64
	for _, p := range owned {
		if !meta.PodActive(p) {
			continue
		}
		replicas++
		full := true
		pl := p.Labels()
		for k, v := range tmplLabels {
			full = full && pl[k] == v
		}
		if full {
			labeled++
		}
		if ok, _ := meta.PodReady(p); ok {
			ready++
		}
		ok, wait := meta.PodAvailable(p, minReady, now)
		if ok {
			available++
		} else if wait > 0 && (requeue == 0 || wait < requeue) {
			requeue = wait
		}
	}
	status = map[string]any{
		"replicas": replicas, "fullyLabeledReplicas": labeled, "readyReplicas": ready,
		"availableReplicas": available, "observedGeneration": rs.Generation(),
	}
	if c := api.NestedSlice(rs, "status", "conditions"); c != nil {
		status["conditions"] = c
	}
	return status, requeue
}

// SlowStartBatches splits n creations into batches of 1, 2, 4, ….
func SlowStartBatches(n int) []int {
	var out []int
	for size := 1; n > 0; size *= 2 {
		b := min(size, n)
		out = append(out, b)
		n -= b
	}
	return out
}
