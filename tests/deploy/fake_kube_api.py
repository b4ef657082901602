"""A stand-in for a Kubernetes API server, enough for kubectl's client-side
dry run: `kubectl apply --dry-run=client` still asks the server which
resources exist (discovery) and whether each object exists already. This
answers discovery with Kubernetes 1.2x's built-in core/v1 and apps/v1
resources, and "not found" for every object, so kubectl maps each manifest's
apiVersion/kind as a real cluster would (an unknown kind or a wrong
apiVersion fails) and reports it "created (dry run)".

  python3 fake_kube_api.py PORT_FILE   # writes the port it listens on
"""
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def resources(group_version, entries):
    return {
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": group_version,
        "resources": [{
            "name": name,
            "singularName": name[:-1],
            "namespaced": namespaced,
            "kind": kind,
            "verbs": ["create", "delete", "get", "list", "patch", "update",
                      "watch"],
        } for name, kind, namespaced in entries],
    }


CORE_V1 = resources("v1", [
    ("configmaps", "ConfigMap", True),
    ("endpoints", "Endpoints", True),
    ("namespaces", "Namespace", False),
    ("persistentvolumeclaims", "PersistentVolumeClaim", True),
    ("pods", "Pod", True),
    ("secrets", "Secret", True),
    ("serviceaccounts", "ServiceAccount", True),
    ("services", "Service", True),
])
APPS_V1 = resources("apps/v1", [
    ("daemonsets", "DaemonSet", True),
    ("deployments", "Deployment", True),
    ("replicasets", "ReplicaSet", True),
    ("statefulsets", "StatefulSet", True),
])
ROUTES = {
    "/api": {"kind": "APIVersions", "versions": ["v1"],
             "serverAddressByClientCIDRs": [
                 {"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1"}]},
    "/apis": {"kind": "APIGroupList", "apiVersion": "v1", "groups": [{
        "name": "apps",
        "versions": [{"groupVersion": "apps/v1", "version": "v1"}],
        "preferredVersion": {"groupVersion": "apps/v1", "version": "v1"},
    }]},
    "/api/v1": CORE_V1,
    "/apis/apps/v1": APPS_V1,
}


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        path = self.path.split("?", 1)[0].rstrip("/")
        body = ROUTES.get(path)
        status = 200
        if body is None:
            status = 404
            body = {"kind": "Status", "apiVersion": "v1", "status": "Failure",
                    "reason": "NotFound", "code": 404,
                    "message": "%s not found" % path}
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(sys.argv[1], "w") as f:
        f.write(str(server.server_address[1]))
    server.serve_forever()


if __name__ == "__main__":
    main()
