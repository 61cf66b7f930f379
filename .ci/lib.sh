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

# readme_on_python VERSION: the README's test command, word for word, in a fresh clone of this
# checkout's HEAD with python3 = Python VERSION. Skips, saying so, where there is no such Python.
readme_on_python() {
  local version="$1" python work command status=0
  python="$(find_python "$version")"
  if [ -z "$python" ]; then
    echo "no Python $version on PATH or under pyenv: its run of the test command is SKIPPED"
    return 0
  fi
  work="$(mktemp -d)"
  git clone -q "$(pwd)" "$work/alem"
  mkdir "$work/bin" && ln -s "$python" "$work/bin/python3"
  command="$(readme_test_command)"
  echo "+ (Python $version) $command"
  (cd "$work/alem" && PATH="$work/bin:$PATH" bash -c "$command") || status=$?
  rm -rf "$work"
  return "$status"
}
