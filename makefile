# Convenience verbs over CMake; scripts/ holds the real steps (and installs what is missing).
BUILD ?= build
PREFIX ?= /usr/local

.PHONY: all check demo bench install clean
all:
	scripts/setup.sh $(BUILD)
check:
	scripts/test.sh
demo:
	scripts/demo.sh
bench: all
	scripts/bench.sh $(BUILD)
install: all
	cmake --install $(BUILD) --prefix $(PREFIX)
clean:
	rm -rf $(BUILD)
