import sys

try:
    from autograder.cli import main
except ModuleNotFoundError as error:
    print(f"error: {error.name} is not installed in this Python ({sys.executable}). Activate the course "
          "environment first: `make env && source .venv/bin/activate`", file=sys.stderr)
    raise SystemExit(2) from None

raise SystemExit(main())
