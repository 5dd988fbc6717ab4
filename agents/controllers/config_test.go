package controllers

import (
	"reflect"
	"testing"
)

func TestEnabled(t *testing.T) {
	for _, tc := range []struct {
		name    string
		spec    []string
		want    []string
		wantErr bool
	}{
		{"default is all", nil, Names, false},
		{"star minus one", []string{"*", "-namespace"}, []string{"replicaset", "deployment", "garbagecollector", "nodelifecycle", "serviceaccount"}, false},
		{"only listed", []string{"namespace", "replicaset"}, []string{"replicaset", "namespace"}, false},
		{"unknown", []string{"*", "-nope"}, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := Enabled(tc.spec)
			if (err != nil) != tc.wantErr || !tc.wantErr && !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Enabled(%v) = %v, %v; want %v (error %v)", tc.spec, got, err, tc.want, tc.wantErr)
			}
		})
	}
}
