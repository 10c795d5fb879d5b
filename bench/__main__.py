import sys

try:
    from bench.cli import main
except KeyboardInterrupt:          # Ctrl-C while importing (matplotlib takes a second): no traceback
    print("python -m bench: interrupted by SIGINT while starting: nothing run", file=sys.stderr)
    sys.exit(130)

main()
