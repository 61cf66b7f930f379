# Shared by the .ci scripts (source it from the repository root).

# The README's test command: the second line of its first code block, which CI runs as written.
readme_test_command() {
  awk '/^```/{block++; next} block==1 {n++; if (n==2) {print; exit}}' README.md
}

# find_python VERSION: the path of a working pythonVERSION on PATH, or under pyenv but not its
# global version (then the shim refuses to run); nothing where there is none.
find_python() {
  local candidate
  for candidate in "python$1" "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$1"*/bin/python"$1"; do
    if "$candidate" -c "" >/dev/null 2>&1; then
      command -v "$candidate"
      return 0
    fi
  done
  return 0
}
