package deployment_test

import (
	"testing"

	"github.com/capstan-io/capstan/agents/agenttest"
)

func TestMain(m *testing.M) { agenttest.Main(m) }
