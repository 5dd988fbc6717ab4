package leaderelection

import (
	"time"

	"github.com/capstan-io/capstan/apiserver/api"
)

// microTime is the metav1.MicroTime wire form.
const microTime = "2006-01-02T15:04:05.000000Z07:00"

// record is the part of a Lease's spec that election reads and writes.
type record struct {
	Holder       string
	DurationSecs int64
	AcquireTime  string
	RenewTime    string
	Transitions  int64
}

func readRecord(o api.Object) record {
	s := api.NestedMap(o, "spec")
	return record{
		Holder:       api.NestedString(s, "holderIdentity"),
		DurationSecs: api.Int64(s["leaseDurationSeconds"]),
		AcquireTime:  api.NestedString(s, "acquireTime"),
		RenewTime:    api.NestedString(s, "renewTime"),
		Transitions:  api.Int64(s["leaseTransitions"]),
	}
}

// write puts r into o's spec.
func (r record) write(o api.Object) {
	spec := map[string]any{
		"leaseDurationSeconds": r.DurationSecs,
		"leaseTransitions":     r.Transitions,
	}
	if r.Holder != "" {
		spec["holderIdentity"] = r.Holder
	}
	if r.AcquireTime != "" {
		spec["acquireTime"] = r.AcquireTime
	}
	if r.RenewTime != "" {
		spec["renewTime"] = r.RenewTime
	}
	o["spec"] = spec
}

func now() string { return time.Now().UTC().Format(microTime) }

// seconds rounds d up to whole seconds, at least 1, as leaseDurationSeconds needs.
func seconds(d time.Duration) int64 {
	return max(1, int64((d+time.Second-1)/time.Second))
}
