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

# readme_install_part: the README's test command up to its installs (its leading `&&` parts that
# make the venv or run pip), so a run can install ahead of time and then run the whole command.
readme_install_part() {
  readme_test_command | awk -F ' && ' '{
    out = ""
    for (i = 1; i <= NF && $i ~ /-m venv|pip install/; i++) out = out (i > 1 ? " && " : "") $i
    print out
  }'
}

# python_clone VERSION DIR: DIR/alem, a clone of this checkout's HEAD, whose `python3` is Python
# VERSION once DIR/bin leads PATH (in_clone does that). Says so and fails where there is no such
# Python.
python_clone() {
  local python
  python="$(find_python "$1")"
  if [ -z "$python" ]; then
    echo "no Python $1 on PATH or under pyenv"
    return 1
  fi
  git clone -q "$(pwd)" "$2/alem"
  mkdir -p "$2/bin" && ln -sf "$python" "$2/bin/python3"
}

# in_clone DIR COMMAND: COMMAND in DIR/alem with python3 = the clone's Python.
in_clone() {
  (cd "$1/alem" && PATH="$1/bin:$PATH" bash -c "$2")
}

# readme_on_python VERSION: the README's test command, word for word, in a fresh clone of this
# checkout's HEAD with python3 = Python VERSION. Skips, saying so, where there is no such Python.
readme_on_python() {
  local version="$1" work command status=0
  work="$(mktemp -d)"
  if ! python_clone "$version" "$work"; then
    echo "Python $version: its run of the test command is SKIPPED"
    rm -rf "$work"
    return 0
  fi
  command="$(readme_test_command)"
  echo "+ (Python $version) $command"
  in_clone "$work" "$command" || status=$?
  rm -rf "$work"
  return "$status"
}
