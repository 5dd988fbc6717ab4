package endpoints

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
)

// MaxBodyBytes is the largest request body accepted, as in Kubernetes.
const MaxBodyBytes = 3 << 20

// readBody reads a size-limited request body.
func readBody(r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, MaxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, apierrors.NewRequestEntityTooLarge(fmt.Sprintf("limit is %d bytes", MaxBodyBytes))
		}
		return nil, apierrors.NewBadRequest(fmt.Sprintf("reading request body: %v", err))
	}
	return b, nil
}

// mediaType returns the request's content type without parameters.
func mediaType(r *http.Request) string {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return ct
	}
	return mt
}

// decodeObject reads a JSON (or YAML) object body.
func decodeObject(r *http.Request) (api.Object, error) {
	body, err := readBody(r)
	if err != nil {
		return nil, err
	}
	switch mt := mediaType(r); mt {
	case "application/json", "":
	case protobufType:
		if body, err = protobufToJSON(body); err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("the body of the request could not be decoded: %v", err))
		}
	case "application/yaml":
		if body, err = yaml.YAMLToJSON(body); err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("the body of the request is not valid YAML: %v", err))
		}
	default:
		return nil, apierrors.NewUnsupportedMediaType(mt)
	}
	o, err := api.Decode(body)
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the body of the request could not be decoded as a JSON object: %v", err))
	}
	return o, nil
}

// decodeStored reads an object from storage and stamps its resourceVersion.
func decodeStored(value []byte, rev int64) (api.Object, error) {
	o, err := api.Decode(value)
	if err != nil {
		return nil, fmt.Errorf("decoding stored object: %w", err)
	}
	o.SetResourceVersion(rev)
	return o, nil
}

// output describes how the client wants objects rendered.
type output struct {
	table         bool
	includeObject string // None, Metadata (default) or Object, for tables
}

// negotiate reads the Accept header: JSON, or a meta.k8s.io/v1 Table.
func negotiate(r *http.Request) (output, error) {
	accept := r.Header.Get("Accept")
	if accept == "" {
		return output{}, nil
	}
	jsonOK := false
	for _, clause := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(clause))
		if err != nil {
			continue
		}
		switch mt {
		case "application/json", "*/*", "application/*":
			if params["as"] == "Table" && params["g"] == "meta.k8s.io" && (params["v"] == "v1" || params["v"] == "v1beta1") {
				inc := r.URL.Query().Get("includeObject")
				if inc == "" {
					inc = "Metadata"
				}
				return output{table: true, includeObject: inc}, nil
			}
			if params["as"] == "" {
				jsonOK = true
			}
		}
	}
	if !jsonOK {
		return output{}, apierrors.NewNotAcceptable("only the following media types are accepted: application/json, application/json;as=Table;v=v1;g=meta.k8s.io")
	}
	return output{}, nil
}
