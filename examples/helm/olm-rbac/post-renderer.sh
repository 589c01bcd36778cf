#!/bin/sh
# olm-rbac as a Helm post-renderer: Helm writes the chart's rendered manifests
# to stdin and installs what this prints, the same manifests followed by the
# RBAC for the APIs they define.
#
#   Helm 4, as a plugin:  helm plugin install ./olm-rbac
#                         helm install guestbook chart/ --post-renderer olm-rbac --post-renderer-args rbac.yaml
#   Helm 3, as a path:    helm install guestbook chart/ --post-renderer ./post-renderer.sh
#
# The RBACConfig is the one argument (--post-renderer-args FILE), else
# $OLM_RBAC_CONFIG, else rbac.yaml; a relative path is read from the folder
# helm runs in.
set -eu
if [ "$#" -gt 1 ]; then
  echo "post-renderer.sh: expected at most one argument, the RBACConfig file; got $#" >&2
  exit 2
fi
exec olm-rbac render --config "${1:-${OLM_RBAC_CONFIG:-rbac.yaml}}" -
