#!/usr/bin/env bash
# Installs the system tools the documents feature runs as child processes:
#   soffice   (LibreOffice Writer, headless)  DOCX -> PDF conversion
#   tesseract (+ English data)                OCR of uploaded images
#   pdftoppm / pdfinfo (poppler-utils)        optional PDF helpers (page counts in tests)
#   dovecot (dovecot-imapd)                    the real IMAP server the e-mail source's
#                                              tests start on loopback (never as a system service)
#   chromium                                   the real browser the web console's tests and
#                                              benchmark drive through playwright-core
# plus a font so converted documents render text.
#
# Idempotent and fast when everything is present: it only checks for the
# commands. Called by `npm start`, `npm test` and `.ci/run` (root, Debian
# bookworm). Exits non-zero only if an install fails.
set -euo pipefail

PACKAGES=(
  libreoffice-writer-nogui
  tesseract-ocr
  tesseract-ocr-eng
  fonts-dejavu-core
  poppler-utils
  dovecot-imapd
  chromium
)

log() { printf '[install-system-deps] %s\n' "$*"; }

missing=()
command -v soffice >/dev/null 2>&1 || missing+=("soffice")
command -v tesseract >/dev/null 2>&1 || missing+=("tesseract")
if command -v tesseract >/dev/null 2>&1 && ! tesseract --list-langs 2>/dev/null | grep -qx 'eng'; then
  missing+=("tesseract English data")
fi
command -v pdftoppm >/dev/null 2>&1 || missing+=("pdftoppm (optional)")
command -v pdfinfo >/dev/null 2>&1 || missing+=("pdfinfo (optional)")
[ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || missing+=("DejaVu fonts")
# /usr/sbin is not on every user's PATH.
{ command -v dovecot >/dev/null 2>&1 || [ -x /usr/sbin/dovecot ]; } || missing+=("dovecot")
[ -x /usr/bin/chromium ] || missing+=("chromium")

if [ "${#missing[@]}" -eq 0 ]; then
  log "soffice, tesseract (eng), pdftoppm, pdfinfo, dovecot, chromium and fonts present; nothing to do"
  exit 0
fi

log "missing: ${missing[*]}"

if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
  else
    log "not root and no sudo: install these Debian packages by hand: ${PACKAGES[*]}"
    exit 1
  fi
else
  SUDO=()
fi

if ! command -v apt-get >/dev/null 2>&1; then
  log "apt-get not found: install by hand: ${PACKAGES[*]}"
  exit 1
fi

# Serialise concurrent runs of this script (npm start and npm test at once);
# apt's own lock is waited on by DPkg::Lock::Timeout.
exec 9>/tmp/docflow-install-system-deps.lock
if command -v flock >/dev/null 2>&1; then
  flock 9
fi

export DEBIAN_FRONTEND=noninteractive
APT_OPTS=(-o DPkg::Lock::Timeout=600 -o Acquire::Retries=3)

log "apt-get update"
if ! "${SUDO[@]}" apt-get "${APT_OPTS[@]}" update -q; then
  log "apt-get update failed"
  exit 1
fi

# Dovecot is for tests, which start their own on loopback: keep the package from
# starting a system-wide IMAP server (policy-rc.d, for this install only).
policy_added=""
if [ ! -e /usr/sbin/policy-rc.d ] && printf '%s\n' "${missing[@]}" | grep -qx dovecot; then
  printf '#!/bin/sh\nexit 101\n' | "${SUDO[@]}" tee /usr/sbin/policy-rc.d >/dev/null
  "${SUDO[@]}" chmod 755 /usr/sbin/policy-rc.d
  policy_added=yes
fi
remove_policy() { [ -z "${policy_added}" ] || "${SUDO[@]}" rm -f /usr/sbin/policy-rc.d; }
trap remove_policy EXIT

log "apt-get install -y --no-install-recommends ${PACKAGES[*]}"
if ! "${SUDO[@]}" apt-get "${APT_OPTS[@]}" install -y -q --no-install-recommends "${PACKAGES[@]}"; then
  log "apt-get install failed"
  exit 1
fi
if [ -n "${policy_added}" ] && command -v systemctl >/dev/null 2>&1; then
  "${SUDO[@]}" systemctl disable dovecot.service >/dev/null 2>&1 || true
fi

for cmd in soffice tesseract; do
  if ! command -v "$cmd" >/dev/null 2>&1; then
    log "$cmd still missing after install"
    exit 1
  fi
done
log "installed: soffice $(soffice --version 2>/dev/null | head -n1 | awk '{print $2}'), $(tesseract --version 2>&1 | head -n1)"
