package pki

import (
	"errors"
	"fmt"
	"path/filepath"

	"sigs.k8s.io/yaml"
)

// clusterName names the cluster and the context in rendered kubeconfigs.
const clusterName = "capstan"

// kubeconfig mirrors the subset of k8s.io/client-go/tools/clientcmd/api/v1
// that Kubeconfig renders. []byte fields marshal as base64, which is what
// the *-data fields hold.
type kubeconfig struct {
	APIVersion     string         `json:"apiVersion"`
	Kind           string         `json:"kind"`
	Clusters       []namedCluster `json:"clusters"`
	Users          []namedUser    `json:"users"`
	Contexts       []namedContext `json:"contexts"`
	CurrentContext string         `json:"current-context"`
}

type namedCluster struct {
	Name    string  `json:"name"`
	Cluster cluster `json:"cluster"`
}

type cluster struct {
	Server                   string `json:"server"`
	CertificateAuthorityData []byte `json:"certificate-authority-data"`
}

type namedUser struct {
	Name string   `json:"name"`
	User authInfo `json:"user"`
}

type authInfo struct {
	ClientCertificateData []byte `json:"client-certificate-data"`
	ClientKeyData         []byte `json:"client-key-data"`
}

type namedContext struct {
	Name    string     `json:"name"`
	Context ctxContext `json:"context"`
}

type ctxContext struct {
	Cluster string `json:"cluster"`
	User    string `json:"user"`
}

// Kubeconfig renders a kubeconfig (YAML, apiVersion v1, kind Config) with a
// cluster named "capstan" whose server is the first of servers,
// certificate-authority-data = CA PEM, one user named user with
// client-certificate-data/client-key-data, a context "capstan" with that
// cluster and user, and current-context "capstan". kubectl takes one server
// per cluster, so each further server gets its own cluster and context,
// "capstan-2", "capstan-3", ... (`kubectl --context capstan-2`). The *-data
// fields hold base64 of the PEMs, as kubectl expects.
func Kubeconfig(servers []string, caPEM, certPEM, keyPEM []byte, user string) ([]byte, error) {
	switch {
	case len(servers) == 0 || servers[0] == "":
		return nil, errors.New("pki: kubeconfig needs a server URL")
	case user == "":
		return nil, errors.New("pki: kubeconfig needs a user name")
	case len(caPEM) == 0:
		return nil, errors.New("pki: kubeconfig needs a CA certificate")
	case len(certPEM) == 0 || len(keyPEM) == 0:
		return nil, errors.New("pki: kubeconfig needs a client certificate and key")
	}
	kc := kubeconfig{
		APIVersion: "v1",
		Kind:       "Config",
		Users: []namedUser{{
			Name: user,
			User: authInfo{ClientCertificateData: certPEM, ClientKeyData: keyPEM},
		}},
		CurrentContext: clusterName,
	}
	for i, s := range servers {
		name := clusterName
		if i > 0 {
			name = fmt.Sprintf("%s-%d", clusterName, i+1)
		}
		kc.Clusters = append(kc.Clusters, namedCluster{Name: name, Cluster: cluster{Server: s, CertificateAuthorityData: caPEM}})
		kc.Contexts = append(kc.Contexts, namedContext{Name: name, Context: ctxContext{Cluster: name, User: user}})
	}
	out, err := yaml.Marshal(kc)
	if err != nil {
		return nil, fmt.Errorf("encoding kubeconfig: %w", err)
	}
	return out, nil
}

// WriteAdminKubeconfig writes Dir/admin.kubeconfig (0600) for server URL,
// using the admin client certificate, and returns its path.
func (b *Bundle) WriteAdminKubeconfig(server string) (string, error) {
	certPEM, keyPEM, err := b.AdminClient()
	if err != nil {
		return "", err
	}
	data, err := Kubeconfig([]string{server}, b.CAPEM, certPEM, keyPEM, AdminUser)
	if err != nil {
		return "", err
	}
	path := filepath.Join(b.Dir, kubeconfigFile)
	if err := writeFile(path, data, secretMode); err != nil {
		return "", fmt.Errorf("writing admin kubeconfig: %w", err)
	}
	return path, nil
}
