package apiserver

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/apiserver/internal/authapi"
	"github.com/capstan-io/capstan/apiserver/internal/authcache"
	"github.com/capstan-io/capstan/apiserver/internal/broadcast"
	"github.com/capstan-io/capstan/auth"
	"github.com/capstan-io/capstan/auth/authn"
	"github.com/capstan-io/capstan/auth/authz"
	"github.com/capstan-io/capstan/auth/pki"
	"github.com/capstan-io/capstan/storage"
)

// authStack is the server's authentication and authorization, and the
// watch-fed state they decide from.
type authStack struct {
	authn   authn.Authenticator
	tokens  authn.Tokens
	authz   authz.Authorizer
	rbac    *authz.RBAC
	nodes   *authz.NodeRestriction
	sa      *authn.ServiceAccounts
	objects authcache.Objects
}

// newAuth builds the chains: x509 → tokens (static incl. the admin token,
// service accounts, OIDC); system:masters → node restriction → RBAC.
func (s *Server) newAuth(bundle *pki.Bundle) (*authStack, error) {
	c := s.cfg.Auth
	static := authn.NewStaticTokens()
	if c.TokenAuthFile != "" {
		var err error
		if static, err = authn.ReadTokenFile(c.TokenAuthFile); err != nil {
			return nil, err
		}
	}
	static.Add(bundle.AdminToken, auth.User{Name: pki.AdminUser, Groups: []string{pki.AdminGroup}})

	keyFile := c.ServiceAccountKeyFile
	if keyFile == "" {
		keyFile = filepath.Join(s.cfg.DataDir, "sa.key")
	} else if _, err := os.Stat(keyFile); err != nil {
		return nil, fmt.Errorf("--service-account-key-file: %w", err) // a key brought in is never generated
	}
	key, err := pki.LoadOrCreateKey(keyFile)
	if err != nil {
		return nil, fmt.Errorf("service account signing key: %w", err)
	}
	a := &authStack{
		rbac:    authz.NewRBAC(),
		nodes:   authz.NewNodeRestriction(),
		objects: authcache.Objects{ServiceAccounts: authcache.NewUIDs(), Pods: authcache.NewUIDs()},
	}
	if a.sa, err = authn.NewServiceAccounts(key, c.ServiceAccountIssuer, c.APIAudiences, a.objects); err != nil {
		return nil, err
	}
	a.tokens = authn.Tokens{static, a.sa}
	if c.OIDC.Issuer != "" {
		o, err := authn.NewOIDC(c.OIDC)
		if err != nil {
			return nil, err
		}
		a.tokens = append(a.tokens, o)
	}
	roots := x509.NewCertPool()
	roots.AddCert(bundle.CACert)
	a.authn = authn.Chain{authn.X509{Roots: roots}, a.tokens}
	a.authz = authz.Chain{authz.Masters, a.nodes, a.rbac}
	return a, nil
}

// api is the handler of the auth APIs.
func (a *authStack) api(store storage.Reader) *authapi.Handler {
	return authapi.New(authapi.Config{Store: store, ServiceAccounts: a.sa, Objects: a.objects, Tokens: a.tokens, Authorizer: a.authz, RBAC: a.rbac})
}

// run starts the watch feeds of the auth state and returns once they hold a
// complete list, so the first request is decided on full information.
func (a *authStack) run(ctx context.Context, wg *sync.WaitGroup, s *Server, store storage.Reader, hubs *hubSet) error {
	feed := func(group, name string, sink broadcast.Sink) *broadcast.Follower {
		r := s.mustLookup(group, "v1", name)
		return broadcast.NewFollower(store, hubs.Hub(r), r.KeyPrefix(), sink, s.log)
	}
	rbacGroup := "rbac.authorization.k8s.io"
	feeds := []*broadcast.Follower{
		feed(rbacGroup, "roles", authcache.RBACSink{RBAC: a.rbac, Kind: authz.KindRole, Log: s.log}),
		feed(rbacGroup, "clusterroles", authcache.RBACSink{RBAC: a.rbac, Kind: authz.KindClusterRole, Log: s.log}),
		feed(rbacGroup, "rolebindings", authcache.RBACSink{RBAC: a.rbac, Kind: authz.KindRoleBinding, Log: s.log}),
		feed(rbacGroup, "clusterrolebindings", authcache.RBACSink{RBAC: a.rbac, Kind: authz.KindClusterRoleBinding, Log: s.log}),
		feed("", "serviceaccounts", a.objects.ServiceAccounts),
		feed("", "pods", authcache.PodSink{Nodes: a.nodes, UIDs: a.objects.Pods}),
	}
	for _, f := range feeds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f.Run(ctx)
		}()
	}
	for _, f := range feeds {
		select {
		case <-f.Synced():
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// checkWrite refuses roles and bindings that grant more than their author
// holds, and a node's writes of nodes and pods that are not its own.
func (a *authStack) checkWrite(ctx context.Context, r *api.Resource, o api.Object) error {
	u, ok := auth.UserFrom(ctx)
	if !ok {
		return nil // a request that bypassed authentication: the server's own bootstrap
	}
	if r.Group == "" && (r.Name == "nodes" || r.Name == "pods") {
		if err := authz.AdmitNodeWrite(u, r.Name, o.Name(), api.NestedString(o, "spec", "nodeName")); err != nil {
			return apierrors.NewForbidden(fmt.Sprintf("%s %q is forbidden: %s", r.GroupResource(), o.Name(),
				strings.TrimPrefix(err.Error(), authz.ErrNodeWrite.Error()+": ")))
		}
		return nil
	}
	if r.Group != "rbac.authorization.k8s.io" {
		return nil
	}
	raw, err := json.Marshal(o)
	if err != nil {
		return err
	}
	err = a.rbac.CheckEscalation(ctx, a.authz, u, r.Kind, o.Namespace(), raw)
	if errors.Is(err, authz.ErrEscalation) {
		return apierrors.NewForbidden(fmt.Sprintf("%s %q is forbidden: %s", r.GroupResource(), o.Name(),
			strings.TrimPrefix(err.Error(), authz.ErrEscalation.Error()+": ")))
	}
	return err
}

// bootstrapRBAC creates the bootstrap cluster roles and bindings that are missing.
func (s *Server) bootstrapRBAC(ctx context.Context, store storage.Interface) error {
	put := func(resource, name string, v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		o, err := api.Decode(b)
		if err != nil {
			return err
		}
		meta, _ := o["metadata"].(map[string]any)
		meta["uid"], meta["creationTimestamp"] = newUID(), time.Now().UTC().Format(time.RFC3339)
		if b, err = encodeJSON(o); err != nil {
			return err
		}
		r := s.mustLookup("rbac.authorization.k8s.io", "v1", resource)
		if _, err := store.Create(ctx, r.Key("", name), b); err != nil && !errors.Is(err, storage.ErrExists) {
			return fmt.Errorf("creating %s %s: %w", resource, name, err)
		}
		return nil
	}
	for _, cr := range authz.BootstrapClusterRoles() {
		if err := put("clusterroles", cr.Name, cr); err != nil {
			return err
		}
	}
	for _, b := range authz.BootstrapClusterRoleBindings() {
		if err := put("clusterrolebindings", b.Name, b); err != nil {
			return err
		}
	}
	return nil
}
