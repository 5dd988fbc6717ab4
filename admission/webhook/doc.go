// Package webhook is the admission plugin that calls the HTTPS webhooks of
// admissionregistration.k8s.io/v1 Mutating- and ValidatingWebhookConfigurations
// with an admission.k8s.io/v1 AdmissionReview: mutating webhooks in order
// (their JSON patches applied one after another), then validating ones.
// Rules select which writes a webhook sees; failurePolicy says whether a
// webhook that cannot be reached fails the write (Fail, the default) or is
// skipped (Ignore); timeoutSeconds (default 10) bounds each call.
//
// The configurations come from a Source the server keeps current from a watch;
// the plugin is safe for concurrent use. Only clientConfig.url is supported
// (Capstan has no service network to reach clientConfig.service).
package webhook
