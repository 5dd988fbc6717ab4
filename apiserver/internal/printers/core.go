package printers

import (
	"time"

	"github.com/capstan-io/capstan/apiserver/api"
)

var namespaceColumns = []api.TableColumnDefinition{
	nameColumn,
	column("Status", "string", "The status of the namespace"),
	ageColumn,
}

func namespaceRow(o api.Object, now time.Time) []any {
	return []any{o.Name(), api.NestedString(o, "status", "phase"), age(o, now)}
}

var configMapColumns = []api.TableColumnDefinition{
	nameColumn,
	column("Data", "string", "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process."),
	ageColumn,
}

// configMapRow counts data and binaryData keys together.
func configMapRow(o api.Object, now time.Time) []any {
	n := len(api.NestedMap(o, "data")) + len(api.NestedMap(o, "binaryData"))
	return []any{o.Name(), int64(n), age(o, now)}
}

var secretColumns = []api.TableColumnDefinition{
	nameColumn,
	column("Type", "string", "Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types"),
	column("Data", "string", "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4"),
	ageColumn,
}

// secretRow shows type Opaque when unset, as kube-apiserver defaults it.
func secretRow(o api.Object, now time.Time) []any {
	return []any{o.Name(), stringOr(o, "Opaque", "type"), int64(len(api.NestedMap(o, "data"))), age(o, now)}
}

var serviceAccountColumns = []api.TableColumnDefinition{
	nameColumn,
	column("Secrets", "string", "Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use. Pods are only limited to this list if this service account has a \"kubernetes.io/enforce-mountable-secrets\" annotation set to \"true\". The \"kubernetes.io/enforce-mountable-secrets\" annotation is deprecated since v1.32. Prefer separate namespaces to isolate access to mounted secrets. This field should not be used to find auto-generated service account token secrets for use outside of pods. Instead, tokens can be requested directly using the TokenRequest API, or service account token secrets can be manually created. More info: https://kubernetes.io/docs/concepts/configuration/secret"),
	ageColumn,
}

func serviceAccountRow(o api.Object, now time.Time) []any {
	return []any{o.Name(), int64(len(api.NestedSlice(o, "secrets"))), age(o, now)}
}

var leaseColumns = []api.TableColumnDefinition{
	nameColumn,
	column("Holder", "string", "holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field."),
	ageColumn,
}

func leaseRow(o api.Object, now time.Time) []any {
	return []any{o.Name(), api.NestedString(o, "spec", "holderIdentity"), age(o, now)}
}
