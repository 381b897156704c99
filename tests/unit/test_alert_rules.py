"""The monitoring files of deploy/ (issue 36 §4), checked by the tools that read them: the alert rules
pass their unit tests (`promtool test rules`), Prometheus's and Alertmanager's configurations load,
and every alert is tested both firing and not firing. promtool and amtool are Debian's (the
`prometheus` and `prometheus-alertmanager` packages, which scripts/test.sh installs)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.settings import PROJECT_ROOT

PROMETHEUS = PROJECT_ROOT / "deploy" / "prometheus"
ALERTMANAGER = PROJECT_ROOT / "deploy" / "alertmanager" / "alertmanager.yml"
TOKEN_FILE = "/etc/prometheus/metrics_token"


def run_tool(name: str, *arguments: str, cwd: Path) -> str:
    """Run one of Debian's monitoring tools; fail, with its whole output, when it is missing or says no."""
    path = shutil.which(name)
    if path is None:
        pytest.fail(
            f"{name} is not installed: scripts/test.sh installs it (apt-get install prometheus prometheus-alertmanager)"
        )
    done = subprocess.run([path, *arguments], cwd=cwd, capture_output=True, text=True, timeout=120, check=False)
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"{name} {' '.join(arguments)} exited with {done.returncode}:\n{output}"
    return output


def alert_rules() -> dict[str, dict[str, Any]]:
    groups = yaml.safe_load((PROMETHEUS / "alerts.yml").read_text(encoding="utf-8"))["groups"]
    return {rule["alert"]: rule for group in groups for rule in group["rules"]}


def test_the_alert_rules_pass_their_promtool_tests():
    output = run_tool("promtool", "test", "rules", "alerts_test.yml", cwd=PROMETHEUS)
    assert "SUCCESS" in output


def test_every_alert_is_tested_firing_and_not_firing():
    tests = yaml.safe_load((PROMETHEUS / "alerts_test.yml").read_text(encoding="utf-8"))["tests"]
    firing: set[str] = set()
    silent: set[str] = set()
    for case in tests:
        for check in case["alert_rule_test"]:
            (firing if check["exp_alerts"] else silent).add(check["alertname"])
    rules = set(alert_rules())
    assert rules - firing == set(), "alerts never expected to fire"
    assert rules - silent == set(), "alerts never expected to stay silent just under their threshold"


def test_every_alert_says_how_bad_and_what_to_check_first():
    for name, rule in alert_rules().items():
        assert rule["labels"]["severity"] in {"critical", "warning"}, name
        assert rule["annotations"]["summary"], name
        assert "First check" in rule["annotations"]["description"], name


def test_the_prometheus_configuration_loads_with_its_rules(tmp_path):
    """The shipped file, with its token file moved into tmp_path (promtool opens it)."""
    token = tmp_path / "metrics_token"
    token.write_text("a-test-token", encoding="utf-8")
    config_text = (PROMETHEUS / "prometheus.yml").read_text(encoding="utf-8")
    assert config_text.count(TOKEN_FILE) == 2
    (tmp_path / "prometheus.yml").write_text(config_text.replace(TOKEN_FILE, str(token)), encoding="utf-8")
    shutil.copy(PROMETHEUS / "alerts.yml", tmp_path / "alerts.yml")
    output = run_tool("promtool", "check", "config", "prometheus.yml", cwd=tmp_path)
    assert f"SUCCESS: {len(alert_rules())} rules found" in output


def test_both_jobs_are_scraped_with_the_token():
    """The job names of the metrics contract, each with the bearer token the app asks for."""
    config = yaml.safe_load((PROMETHEUS / "prometheus.yml").read_text(encoding="utf-8"))
    jobs = {job["job_name"]: job for job in config["scrape_configs"]}
    assert set(jobs) == {"escorts-web", "escorts-worker"}
    for job in jobs.values():
        assert job["authorization"] == {"type": "Bearer", "credentials_file": TOKEN_FILE}
    assert config["rule_files"] == ["alerts.yml"]


def test_the_alertmanager_configuration_loads():
    output = run_tool("amtool", "check-config", str(ALERTMANAGER), cwd=PROJECT_ROOT)
    assert "SUCCESS" in output


def test_compose_runs_them_under_the_monitoring_profile_with_these_files():
    """`up` alone starts neither; each mounts files of deploy/ that exist, and listens on loopback only."""
    compose = yaml.safe_load((PROJECT_ROOT / "compose.yaml").read_text(encoding="utf-8"))
    mounted: set[Path] = set()
    for name in ("prometheus", "alertmanager"):
        service = compose["services"][name]
        assert service["profiles"] == ["monitoring"]
        assert all(port.startswith("127.0.0.1:") for port in service["ports"])
        for volume in service["volumes"]:
            source = re.sub(r"\$\{[A-Z_]+:-([^}]*)\}", r"\1", volume).split(":")[0]  # the defaults
            if source.startswith("./"):
                mounted.add(PROJECT_ROOT / source)
    assert mounted == {PROMETHEUS / "prometheus.yml", PROMETHEUS / "alerts.yml", ALERTMANAGER}
