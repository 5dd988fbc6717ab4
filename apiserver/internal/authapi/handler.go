package authapi

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/apiserver/internal/authcache"
	"github.com/capstan-io/capstan/apiserver/internal/endpoints"
	"github.com/capstan-io/capstan/auth"
	"github.com/capstan-io/capstan/auth/authn"
	"github.com/capstan-io/capstan/auth/authz"
	"github.com/capstan-io/capstan/storage"
)

// Config is what the auth APIs need.
type Config struct {
	Store storage.Reader
	// ServiceAccounts issues TokenRequest tokens.
	ServiceAccounts *authn.ServiceAccounts
	// Objects records the service accounts and pods tokens are issued for, so
	// the token works at once even if the watch has not delivered them yet.
	Objects authcache.Objects
	// Tokens checks TokenReview tokens.
	Tokens authn.TokenAuthenticator
	// Authorizer answers access reviews; RBAC lists rules for rules reviews.
	Authorizer authz.Authorizer
	RBAC       *authz.RBAC
}

// Handler serves the auth APIs.
type Handler struct{ cfg Config }

// New returns a Handler.
func New(cfg Config) *Handler { return &Handler{cfg: cfg} }

// decode reads the request body into v, checking its kind.
func decode(r *http.Request, kind string, v any) error {
	o, err := endpoints.DecodeRequest(r)
	if err != nil {
		return err
	}
	if k, _ := o["kind"].(string); k != "" && k != kind {
		return apierrors.NewBadRequest(fmt.Sprintf("the body of the request was a %s, not a %s", k, kind))
	}
	b, err := json.Marshal(o)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return apierrors.NewBadRequest(fmt.Sprintf("the body of the request could not be decoded as a %s: %v", kind, err))
	}
	return nil
}

// requester is the authenticated user of r.
func requester(r *http.Request) auth.User {
	u, ok := auth.UserFrom(r.Context())
	if !ok {
		return auth.Anonymous()
	}
	return u
}

// userInfo is authentication.k8s.io/v1 UserInfo.
type userInfo struct {
	Username string              `json:"username,omitempty"`
	UID      string              `json:"uid,omitempty"`
	Groups   []string            `json:"groups,omitempty"`
	Extra    map[string][]string `json:"extra,omitempty"`
}

func toUserInfo(u auth.User) userInfo {
	return userInfo{Username: u.Name, UID: u.UID, Groups: u.Groups, Extra: u.Extra}
}

// stamp gives a review response its type and a copy of the request's metadata.
func stamp(apiVersion, kind string, meta map[string]any) map[string]any {
	if meta == nil {
		meta = map[string]any{}
	}
	meta["creationTimestamp"] = nil
	return map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": meta}
}

var serviceAccounts = &api.Resource{Version: "v1", Name: "serviceaccounts", Namespaced: true}
var pods = &api.Resource{Version: "v1", Name: "pods", Namespaced: true}
