package deployment

import "github.com/capstan-io/capstan/agents/controllers/meta"

var metaCondition = meta.Condition
