package redact

import "testing"

func TestSecret(t *testing.T) {
	for name, secret := range map[string]bool{
		"HF_TOKEN": true, "aws_secret_access_key": true, "DB_Password": true, "PASSWD": true,
		"SSH_AUTH_SOCK": true, "Cookie": true, "GITHUB_CREDENTIALS": true, "API_KEY": true,
		"PATH": false, "DISAGGSIM_TERMINAL": false, "NCCL_ALGO": false, "HOME": false,
	} {
		if Secret(name) != secret {
			t.Errorf("Secret(%q) = %v", name, !secret)
		}
	}
	got := Env([]string{"HF_TOKEN=hf_abc", "PATH=/bin", "odd"})
	if got[0] != "HF_TOKEN=[REDACTED]" || got[1] != "PATH=/bin" || got[2] != "odd" {
		t.Fatalf("%v", got)
	}
}
