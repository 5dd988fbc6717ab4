package serviceaccount_test

import (
	"testing"

	"github.com/capstan-io/capstan/agents/controllers/controllertest"
	"github.com/capstan-io/capstan/agents/controllers/serviceaccount"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apiservertest"
)

func TestDefaultServiceAccount(t *testing.T) {
	env := controllertest.New(apiservertest.Start(t).Client)
	c := serviceaccount.New(serviceaccount.Config{Client: env.Client, Informers: env.Informers, Recorder: env.Recorder})
	env.Run(t, c.Run)
	env.Create(t, "", "v1", "namespaces", api.Object{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "team"}})
	sas := env.Client.Resource("", "v1", "serviceaccounts")
	for _, ns := range []string{"default", "team"} {
		env.Eventually(t, "default SA in "+ns, func() bool {
			_, err := sas.Namespace(ns).Get(env.Ctx, "default")
			return err == nil
		})
	}
	if _, err := sas.Namespace("team").Delete(env.Ctx, "default", nil); err != nil {
		t.Fatal(err)
	}
	env.Eventually(t, "default SA recreated", func() bool {
		_, err := sas.Namespace("team").Get(env.Ctx, "default")
		return err == nil
	})
}
