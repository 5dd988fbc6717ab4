package endpoints

import (
	"encoding/json"
	"testing"

	"github.com/capstan-io/capstan/apiserver/api"
)

// TestEncodeListMatchesMarshal: a list encoded around its items byte for
// byte is what json.Marshal makes of it, empty or not, with a continue token
// and a remaining count.
func TestEncodeListMatchesMarshal(t *testing.T) {
	rem := int64(7)
	for _, l := range []api.List{
		{TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "ConfigMapList"}, Metadata: api.ListMeta{ResourceVersion: "12"}, Items: []json.RawMessage{}},
		{TypeMeta: api.TypeMeta{APIVersion: "apps/v1", Kind: "DeploymentList"}, Metadata: api.ListMeta{ResourceVersion: "99", Continue: "abc", RemainingItemCount: &rem},
			Items: []json.RawMessage{
				json.RawMessage(`{"metadata":{"name":"a","resourceVersion":"5"},"data":{"k":"ü \u003c \"q\""}}`),
				json.RawMessage(`{"metadata":{"name":"b","resourceVersion":"6"},"spec":{"replicas":2,"list":[1,2.5,null,true]}}`),
			}},
	} {
		got, err := encodeList(l)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("encodeList\n%s\njson.Marshal\n%s", got, want)
		}
		var back api.List
		if err := json.Unmarshal(got, &back); err != nil || len(back.Items) != len(l.Items) {
			t.Errorf("does not decode as the list it was: %v, %d items", err, len(back.Items))
		}
	}
}
