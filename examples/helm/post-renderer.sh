#!/bin/sh
# Helm post-renderer: Helm writes the rendered manifests to stdin and applies
# what this prints. Run from this folder, or set OLM_RBAC_CONFIG.
#   helm install guestbook chart/ --post-renderer ./post-renderer.sh
set -eu
exec olm-rbac render --config "${OLM_RBAC_CONFIG:-rbac.yaml}" -
