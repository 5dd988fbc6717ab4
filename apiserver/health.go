package apiserver

import (
	"context"
	"errors"
	"net/http"
	"runtime"
	"time"

	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/storage"
)

// health answers the probes. readyz fails while etcd does not answer.
type health struct{ store storage.Reader }

func newHealth(store storage.Reader) *health { return &health{store: store} }

func (h *health) live(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write([]byte("ok"))
}

func (h *health) ready(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	_, err := h.store.Get(ctx, "/registry/health")
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte("[-]etcd failed: " + err.Error() + "\nreadyz check failed\n"))
		return
	}
	if _, verbose := r.URL.Query()["verbose"]; verbose {
		w.Write([]byte("[+]ping ok\n[+]etcd ok\nreadyz check passed\n"))
		return
	}
	w.Write([]byte("ok"))
}

// versionInfo is /version, shaped like Kubernetes' version.Info.
type versionInfo struct {
	Major        string `json:"major"`
	Minor        string `json:"minor"`
	GitVersion   string `json:"gitVersion"`
	GitCommit    string `json:"gitCommit"`
	GitTreeState string `json:"gitTreeState"`
	BuildDate    string `json:"buildDate"`
	GoVersion    string `json:"goVersion"`
	Compiler     string `json:"compiler"`
	Platform     string `json:"platform"`
}

// Version is the Kubernetes API level Capstan serves.
const Version = "v1.32.0+capstan"

func version(w http.ResponseWriter, r *http.Request) (any, error) {
	return versionInfo{Major: "1", Minor: "32", GitVersion: Version, GitTreeState: "clean", GoVersion: runtime.Version(),
		Compiler: runtime.Compiler, Platform: runtime.GOOS + "/" + runtime.GOARCH}, nil
}

func notFound(w http.ResponseWriter, r *http.Request) (any, error) {
	return nil, apierrors.New(http.StatusNotFound, apierrors.ReasonNotFound, "the server could not find the requested resource", nil)
}

func methodNotAllowed(w http.ResponseWriter, r *http.Request) (any, error) {
	return nil, apierrors.New(http.StatusMethodNotAllowed, apierrors.ReasonMethodNotAllowed, "the server does not allow this method on the requested resource", nil)
}
