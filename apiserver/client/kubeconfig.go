package client

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"
)

// kubeconfig is the part of a kubeconfig file the client reads.
type kubeconfig struct {
	CurrentContext string `json:"current-context"`
	Clusters       []struct {
		Name    string `json:"name"`
		Cluster struct {
			Server                   string `json:"server"`
			CertificateAuthority     string `json:"certificate-authority"`
			CertificateAuthorityData string `json:"certificate-authority-data"`
		} `json:"cluster"`
	} `json:"clusters"`
	Users []struct {
		Name string `json:"name"`
		User struct {
			ClientCertificate     string `json:"client-certificate"`
			ClientCertificateData string `json:"client-certificate-data"`
			ClientKey             string `json:"client-key"`
			ClientKeyData         string `json:"client-key-data"`
			Token                 string `json:"token"`
			TokenFile             string `json:"tokenFile"`
		} `json:"user"`
	} `json:"users"`
	Contexts []struct {
		Name    string `json:"name"`
		Context struct {
			Cluster string `json:"cluster"`
			User    string `json:"user"`
		} `json:"context"`
	} `json:"contexts"`
}

// LoadKubeconfig reads the current context of a kubeconfig file into a
// Config: server, CA, client certificate and key, and token (inline or from
// files, relative paths being relative to the kubeconfig).
func LoadKubeconfig(path string) (Config, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("reading kubeconfig: %w", err)
	}
	var kc kubeconfig
	if err := yaml.Unmarshal(raw, &kc); err != nil {
		return Config{}, fmt.Errorf("parsing kubeconfig %s: %w", path, err)
	}
	ctxName := kc.CurrentContext
	if ctxName == "" && len(kc.Contexts) == 1 {
		ctxName = kc.Contexts[0].Name
	}
	var clusterName, userName string
	found := false
	for _, c := range kc.Contexts {
		if c.Name == ctxName {
			clusterName, userName, found = c.Context.Cluster, c.Context.User, true
		}
	}
	if !found {
		return Config{}, fmt.Errorf("kubeconfig %s: context %q not found", path, ctxName)
	}
	dir := filepath.Dir(path)
	var cfg Config
	var errs []string
	data := func(inline, file string) []byte {
		if inline != "" {
			b, err := base64.StdEncoding.DecodeString(inline)
			if err != nil {
				errs = append(errs, err.Error())
			}
			return b
		}
		if file == "" {
			return nil
		}
		if !filepath.IsAbs(file) {
			file = filepath.Join(dir, file)
		}
		b, err := os.ReadFile(file)
		if err != nil {
			errs = append(errs, err.Error())
		}
		return b
	}
	for _, c := range kc.Clusters {
		if c.Name == clusterName {
			cfg.Server = c.Cluster.Server
			cfg.CAData = data(c.Cluster.CertificateAuthorityData, c.Cluster.CertificateAuthority)
		}
	}
	for _, u := range kc.Users {
		if u.Name == userName {
			cfg.CertData = data(u.User.ClientCertificateData, u.User.ClientCertificate)
			cfg.KeyData = data(u.User.ClientKeyData, u.User.ClientKey)
			cfg.Token = u.User.Token
			if cfg.Token == "" && u.User.TokenFile != "" {
				cfg.Token = strings.TrimSpace(string(data("", u.User.TokenFile)))
			}
		}
	}
	if len(errs) > 0 {
		return Config{}, fmt.Errorf("kubeconfig %s: %s", path, strings.Join(errs, "; "))
	}
	if cfg.Server == "" {
		return Config{}, fmt.Errorf("kubeconfig %s: cluster %q has no server", path, clusterName)
	}
	return cfg, nil
}
