"""Checks that the Kubernetes manifests under deploy/kubernetes/ fit together, which schema validation and
checkov do not look at: selectors match the pod labels, named ports and Secret keys exist, probes use the
server's endpoints, the rollout and shutdown settings match the server's drain time, and Prometheus can find
/metrics. Prints one PASS or FAIL line per check. Needs PyYAML (installed with checkov).

Usage: python3 tools/deploy/check_manifests.py deploy/kubernetes
"""
import pathlib
import sys

import yaml

DRAIN_SECONDS = 10  # the server's drainTimeout after SIGTERM
RESULTS = []


def check(ok, what):
    RESULTS.append(bool(ok))
    print("%s  %s" % ("PASS" if ok else "FAIL", what))


def load(directory):
    objects = []
    for path in sorted(directory.glob("*.yaml")):
        for document in yaml.safe_load_all(path.read_text()):
            if document:
                objects.append(document)
    return objects


def by_kind(objects, kind):
    return [o for o in objects if o.get("kind") == kind]


def matches(selector, labels):
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def check_set(name, objects, prometheus_monitors):
    deployments = by_kind(objects, "Deployment")
    check(len(deployments) == 1, "%s: one Deployment" % name)
    if not deployments:
        return
    deployment = deployments[0]
    spec = deployment["spec"]
    pod = spec["template"]
    pod_labels = pod["metadata"].get("labels", {})
    pod_spec = pod["spec"]
    container = pod_spec["containers"][0]
    ports = {p.get("name"): p["containerPort"] for p in container.get("ports", [])}
    namespaces = {o["metadata"].get("namespace") for o in objects if o.get("kind") != "Namespace"}
    check(namespaces == {"kwsuggest"} and any(o["metadata"]["name"] == "kwsuggest" for o in by_kind(objects, "Namespace")),
          "%s: every object is in the kwsuggest namespace, which the set creates" % name)
    check(matches(spec["selector"]["matchLabels"], pod_labels), "%s: the Deployment's selector matches its pod labels" % name)
    check(ports.get("http") == 8080, "%s: the container port 'http' is 8080 (the image's PORT)" % name)

    command = container.get("command", [])
    check(command[:2] == ["kwsuggest", "serve"] and "--host" in command and command[command.index("--host") + 1] in ("0.0.0.0", "::"),
          "%s: runs kwsuggest serve on a non-loopback address" % name)
    env = {e["name"]: e for e in container.get("env", [])}
    token = env.get("KWSUGGEST_ADMIN_TOKEN", {}).get("valueFrom", {}).get("secretKeyRef")
    check(token is not None, "%s: KWSUGGEST_ADMIN_TOKEN comes from a Secret (keyword writes need the token)" % name)
    secrets = {o["metadata"]["name"]: o for o in by_kind(objects, "Secret")}
    referenced = [e["valueFrom"]["secretKeyRef"] for e in env.values() if "secretKeyRef" in e.get("valueFrom", {})]
    referenced += [{"name": v["secret"]["secretName"], "key": item["key"]}
                   for v in pod_spec.get("volumes", []) if "secret" in v for item in v["secret"].get("items", [])]
    missing = [r for r in referenced
               if r["key"] not in {**secrets.get(r["name"], {}).get("stringData", {}), **secrets.get(r["name"], {}).get("data", {})}]
    check(referenced and not missing, "%s: every Secret key the pod uses is in the Secret manifest%s" % (
        name, "" if not missing else " (missing: %s)" % missing))

    probes = {kind: container.get(kind + "Probe", {}).get("httpGet", {}) for kind in ("startup", "readiness", "liveness")}
    check(probes["startup"].get("path") == "/readyz" and probes["readiness"].get("path") == "/readyz"
          and probes["liveness"].get("path") == "/healthz"
          and all(p.get("port") in ("http", 8080) for p in probes.values()),
          "%s: startup and readiness probes on /readyz, liveness on /healthz, all on the http port" % name)
    startup = container["startupProbe"]
    check(startup.get("periodSeconds", 10) * startup.get("failureThreshold", 3) >= 30,
          "%s: the startup probe allows at least 30 s to become ready" % name)

    pre_stop = container.get("lifecycle", {}).get("preStop", {}).get("sleep", {}).get("seconds", 0)
    grace = pod_spec.get("terminationGracePeriodSeconds", 30)
    check(grace > pre_stop + DRAIN_SECONDS,
          "%s: terminationGracePeriodSeconds %d > preStop %d s + drain %d s" % (name, grace, pre_stop, DRAIN_SECONDS))

    security = container.get("securityContext", {})
    pod_security = pod_spec.get("securityContext", {})
    check(security.get("readOnlyRootFilesystem") is True and security.get("allowPrivilegeEscalation") is False
          and security.get("capabilities", {}).get("drop") == ["ALL"]
          and (security.get("runAsNonRoot") or pod_security.get("runAsNonRoot"))
          and (security.get("seccompProfile") or pod_security.get("seccompProfile", {})).get("type") == "RuntimeDefault"
          and pod_security.get("runAsUser", security.get("runAsUser")) == 10001,
          "%s: non-root uid 10001 (the image's user), read-only root, no capabilities, seccomp RuntimeDefault" % name)
    check(pod_spec.get("automountServiceAccountToken") is False, "%s: no service account token in the pod" % name)

    resources = container.get("resources", {})

    def quantity(text):
        text = str(text)
        for suffix, factor in (("Mi", 2**20), ("Gi", 2**30), ("m", 1e-3)):
            if text.endswith(suffix):
                return float(text[: -len(suffix)]) * factor
        return float(text)

    check(all(quantity(resources["requests"][r]) <= quantity(resources["limits"][r]) for r in ("cpu", "memory"))
          and quantity(resources["requests"]["memory"]) >= 96e6,
          "%s: requests <= limits, and the memory request covers the measured peak RSS (96 MB with PostgreSQL)" % name)

    # Writes: with a read-only root, the file store must be on a mounted volume.
    if "--store" in command:
        store = command[command.index("--store") + 1]
        if store.startswith("file:"):
            mounts = [m["mountPath"] for m in container.get("volumeMounts", [])]
            path = store[len("file:"):]
            check(any(path.startswith(m.rstrip("/") + "/") for m in mounts),
                  "%s: the file store %s is on a mounted volume" % (name, path))
            claims = {v["persistentVolumeClaim"]["claimName"] for v in pod_spec.get("volumes", []) if "persistentVolumeClaim" in v}
            check(claims and claims <= {o["metadata"]["name"] for o in by_kind(objects, "PersistentVolumeClaim")},
                  "%s: the volume's PersistentVolumeClaim is in the set" % name)
            check(spec["replicas"] == 1 and spec.get("strategy", {}).get("type") == "Recreate",
                  "%s: one writer for the file store (1 replica, Recreate)" % name)
    elif "KWSUGGEST_STORE" in env:
        check(env["KWSUGGEST_STORE"].get("valueFrom", {}).get("secretKeyRef") is not None,
              "%s: the PostgreSQL store URL comes from the Secret" % name)
        rolling = spec.get("strategy", {}).get("rollingUpdate", {})
        check(spec["replicas"] == 3 and spec["strategy"]["type"] == "RollingUpdate" and rolling.get("maxUnavailable") == 0,
              "%s: 3 replicas, rolling update with maxUnavailable 0" % name)
        pdbs = by_kind(objects, "PodDisruptionBudget")
        check(pdbs and all(matches(p["spec"]["selector"]["matchLabels"], pod_labels) for p in pdbs),
              "%s: the PodDisruptionBudget selects the pods" % name)
        hpas = by_kind(objects, "HorizontalPodAutoscaler")
        check(len(hpas) == 1 and hpas[0]["spec"]["scaleTargetRef"]["name"] == deployment["metadata"]["name"]
              and hpas[0]["spec"]["minReplicas"] == spec["replicas"]
              and any(m["type"] == "Resource" and m["resource"]["name"] == "cpu" for m in hpas[0]["spec"]["metrics"]),
              "%s: the HorizontalPodAutoscaler scales the Deployment on CPU from its replica count" % name)
    else:
        check(False, "%s: the server is given a store (--store file:… or KWSUGGEST_STORE)" % name)

    services = by_kind(objects, "Service")
    check(services and all(matches(s["spec"]["selector"], pod_labels)
                           and all(p["targetPort"] in ports or p["targetPort"] in ports.values() for p in s["spec"]["ports"])
                           for s in services),
          "%s: the Service selects the pods and targets a container port" % name)
    policies = [p for p in by_kind(objects, "NetworkPolicy") if matches(p["spec"]["podSelector"]["matchLabels"], pod_labels)]
    check(policies and all(matches(p["spec"]["podSelector"]["matchLabels"], pod_labels)
                           and any(port.get("port") in (8080, "http") for rule in p["spec"].get("ingress", []) for port in rule.get("ports", []))
                           for p in policies),
          "%s: the NetworkPolicy selects the pods and lets traffic reach port 8080" % name)

    for job in by_kind(objects, "CronJob"):
        check_retrain_job(name, job, container, pod_labels, services, by_kind(objects, "NetworkPolicy"), secrets)

    annotations = pod["metadata"].get("annotations", {})
    check(annotations.get("prometheus.io/scrape") == "true" and annotations.get("prometheus.io/path") == "/metrics"
          and annotations.get("prometheus.io/port") == str(ports.get("http")),
          "%s: the pod annotations point Prometheus at /metrics on the container port" % name)
    for monitor in prometheus_monitors:
        endpoints = monitor["spec"]["endpoints"]
        check(any(matches(monitor["spec"]["selector"]["matchLabels"], s["metadata"].get("labels", {}))
                  and {e["port"] for e in endpoints} <= {p.get("name") for p in s["spec"]["ports"]} for s in services)
              and all(e.get("path") == "/metrics" for e in endpoints),
              "%s: the ServiceMonitor selects the Service and scrapes /metrics on a named port" % name)


def check_retrain_job(name, job, serving, serving_labels, services, policies, secrets):
    """The retraining CronJob: the replicas' image, a recipe retrain from the store, a push, and a promotion only
    behind AUTO_PROMOTE and never forced; its pods are no Service's endpoints and reach PostgreSQL."""
    what = "%s: CronJob %s" % (name, job["metadata"]["name"])
    pod = job["spec"]["jobTemplate"]["spec"]["template"]
    labels = pod["metadata"].get("labels", {})
    container = pod["spec"]["containers"][0]
    script = " ".join(container.get("command", []) + container.get("args", []))
    env = {e["name"]: e for e in container.get("env", [])}
    check(container.get("image") == serving.get("image"), "%s uses the replicas' image" % what)
    check("train --recipe" in script and '--feedback "$KWSUGGEST_STORE"' in script and "model push" in script,
          "%s retrains from the recipe with the store's feedback and pushes the candidate" % what)
    check("model promote" in script and "--force" not in script and '"${AUTO_PROMOTE:-false}" = "true"' in script
          and env.get("AUTO_PROMOTE", {}).get("value") in ("true", "false"),
          "%s promotes only when AUTO_PROMOTE is true, through the gate" % what)
    check("secretKeyRef" in env.get("KWSUGGEST_STORE", {}).get("valueFrom", {}), "%s reads the store URL from the Secret" % what)
    check(not any(matches(s["spec"]["selector"], labels) for s in services) and not matches(serving_labels, labels),
          "%s: its pods are not selected by the Service" % what)
    check(any(matches(p["spec"]["podSelector"]["matchLabels"], labels)
              and any(port.get("port") == 5432 for rule in p["spec"].get("egress", []) for port in rule.get("ports", []))
              and not p["spec"].get("ingress") for p in policies),
          "%s: a NetworkPolicy lets its pods reach PostgreSQL and nothing reach them" % what)
    referenced = [e["valueFrom"]["secretKeyRef"] for e in env.values() if "secretKeyRef" in e.get("valueFrom", {})]
    check(all(r["key"] in {**secrets.get(r["name"], {}).get("stringData", {}), **secrets.get(r["name"], {}).get("data", {})}
              for r in referenced), "%s: every Secret key it uses is in the Secret manifest" % what)


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "deploy/kubernetes")
    monitors = by_kind(load(root / "prometheus"), "ServiceMonitor") if (root / "prometheus").is_dir() else []
    check(monitors, "prometheus: a ServiceMonitor for the Prometheus Operator")
    for name in ("replicas", "single-node"):
        directory = root / name
        check(directory.is_dir(), "%s: the directory exists" % name)
        if directory.is_dir():
            # The Secret is an example beside the directory, so that applying the directory never overwrites
            # the real one.
            example = root / ("secret-%s.example.yaml" % name)
            check(example.is_file(), "%s: an example Secret, %s" % (name, example.name))
            secrets = [o for o in yaml.safe_load_all(example.read_text()) if o] if example.is_file() else []
            check_set(name, load(directory) + secrets, monitors)
    sys.exit(0 if all(RESULTS) else 1)


if __name__ == "__main__":
    main()
