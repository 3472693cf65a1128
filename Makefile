# The toolkit's commands. `make demo` and `make test` are the two a newcomer needs (see README.md).
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
VENV := $(CURDIR)/.venv
export PATH := $(VENV)/bin:$(PATH)
export ANSIBLE_CONFIG := $(CURDIR)/ansible.cfg
KAFKA_CACHE := $(CURDIR)/.cache/kafka

.PHONY: journey bench-upgrade record-metrics test-alerts setup host-packages venv collection-link kafka-archive jmx-exporter lag-exporter-wheel spark-jars lab-up lab-down lab-status deploy demo chaos rule-removal security-drills \
	test test-long test-kraft test-kraft-3.9 test-migration test-convert-quorum test-upgrade test-adopt lint unit molecule \
	bench bench-deploy bench-roll bench-rebuild bench-validator bench-security bench-migration bench-sandbox \
	bench-rotation bench-replace-controller bench-alerts bench-alerts-zookeeper bench-alerts-kraft bench-alerts-cost

setup: host-packages venv collection-link kafka-archive jmx-exporter lag-exporter-wheel spark-jars

# The checkout is the kafkaops.toolkit collection; ansible.cfg's collections_path finds it here.
COLLECTION_LINK := $(CURDIR)/.cache/collections/ansible_collections/kafkaops/toolkit
collection-link:
	mkdir -p $(dir $(COLLECTION_LINK))
	ln -sfn $(CURDIR) $(COLLECTION_LINK)

host-packages:
	scripts/install_host_packages.sh

# Reinstalls only when requirements.txt changed since the last install.
venv: $(VENV)/.requirements.installed
$(VENV)/.requirements.installed: requirements.txt
	test -x $(VENV)/bin/python || python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q -r requirements.txt
	cp requirements.txt $@

kafka-archive:
	dist/build_kafka_archive.sh $(KAFKA_CACHE)

jmx-exporter:
	dist/fetch_jmx_exporter.sh $(CURDIR)/.cache/jmx-exporter

lag-exporter-wheel: venv
	dist/fetch_confluent_kafka_wheel.sh $(CURDIR)/.cache/lag-exporter

spark-jars:
	spark/jars/fetch.sh $(CURDIR)/.cache/spark-jars

lab-up: setup
	python -m lab up

lab-down:
	python -m lab down

lab-status:
	python -m lab status

deploy: lab-up
	ansible-playbook playbooks/site.yml

# The demo replaces a broker, so it starts from a fresh lab.
demo: setup
	mkdir -p .cache/demo
	{ python -m lab down && python -m lab up && ansible-playbook playbooks/site.yml && \
	  ansible-playbook playbooks/cluster_summary.yml && python scripts/demo.py; } 2>&1 | tee .cache/demo/demo.log
	python scripts/check_no_secrets.py .cache/demo/demo.log

# Every chaos scenario (tests/chaos/scenarios.py) in one run on a fresh lab (the report gives its wall time);
# writes docs/reliability.md from that run alone (run_record.py: commit, measured start and end) even when a
# scenario fails (its row says FAILED and why), then exits with pytest's status.
chaos: setup
	rm -rf .cache/chaos
	python tests/chaos/run_record.py start
	python -m lab down
	python -m lab up
	ansible-playbook playbooks/site.yml
	status=0; CHAOS_SCENARIOS=all pytest -p no:cacheprovider -s tests/chaos \
		--junitxml=.cache/test-results/chaos.xml || status=$$?; \
	python tests/chaos/run_record.py end $$status; \
	PYTHONPATH=. python tests/chaos/report.py > .cache/chaos/reliability.md; \
	mv .cache/chaos/reliability.md docs/reliability.md; \
	echo "wrote docs/reliability.md"; exit $$status

# Each safety rule taken out of the code in turn: its lab tests must fail (tests/rule_removal.py; on a
# deployed lab, make deploy). Writes .cache/rule-removal/report.md.
rule-removal: setup
	python tests/rule_removal.py $(RULES)

# secure_cluster.yml from an open cluster (the previous roles' deploy) to the secured one under a canary, on a
# fresh lab: nothing lost, no failed send, every rerun changes nothing (tests/drills/secure_cluster.py); then
# a certificate renewal (site.yml) and rotate_ca.yml on a fresh lab under a canary trusting the old CA until
# the last phase (tests/drills/rotate_ca.py); and secure_cluster.yml moving a cluster of the previous layout
# (members by password) to member certificates under a canary (tests/drills/convert_previous_layout.py).
security-drills: setup
	python tests/drills/secure_cluster.py
	python tests/drills/rotate_ca.py
	python tests/drills/convert_previous_layout.py
	python tests/drills/convert_previous_layout.py --kraft

# Lab tests too long for make test (tests/integration/long_*.py, which pytest collects only when named), on a
# freshly deployed lab: a certificate's renewal through site.yml, every role preflight refusal, the CA rotation under
# load, rotate_credentials.yml for every kind of credential under a canary, secure_cluster.yml on the secured lab,
# site.yml's config changes rolled (and finished by a rerun), the validator end to end and on the lab's Spark cluster,
# the ZooKeeper roll, rotate_ca.yml's refusals, the modules around a stopped broker, a killed run's throttle records,
# the lab's fault tools, every refusal of rebuild_broker.yml and replace_broker.yml, a failed rebuild's throttle, a
# fenced live broker, and the refusals of upgrade_kafka.yml and rollback_upgrade.yml (a node down, partitions
# under-replicated, an older release, nothing recorded); about 90 minutes: the tests took 1641 s on 1db4e9f, and the
# files moved here from make test since took 3275 s there: 2188 s, 328 s and 759 s on 2026-11-27.
test-long: setup
	python -m lab down
	python -m lab up
	ansible-playbook playbooks/site.yml
	pytest -p no:cacheprovider tests/integration/long_*.py --junitxml=.cache/test-results/long.xml

# The KRaft lab (molecule scenario kraft) on Kafka 4.4.0, a dynamic quorum: a fresh lab deployed by site.yml with
# kafka_metadata_mode: kraft, idempotence, the controllers' and brokers' testinfra checks, the KRaft lab tests
# (tests/integration/kraft_*.py: deploy, controller roll, a controller's lost disk) and the recovery tests also run
# on ZooKeeper (rebuild, replace, refusals, rolling restart gates, throttles; molecule/kraft/molecule.yml), then the
# lab is taken down. make test-kraft-3.9 runs the same on 3.9.2, a static quorum (what a migrated cluster has).
test-kraft: export KAFKAOPS_LAB_KAFKA_VERSION := 4.4.0
test-kraft-3.9: export KAFKAOPS_LAB_KAFKA_VERSION := 3.9.2
test-kraft test-kraft-3.9: setup
	mkdir -p .cache/test-results
	molecule test -s kraft 2>&1 | tee .cache/test-results/molecule-kraft-$$KAFKAOPS_LAB_KAFKA_VERSION.log
	python scripts/check_no_secrets.py .cache/test-results/molecule-kraft-$$KAFKAOPS_LAB_KAFKA_VERSION.log

# convert_quorum_to_dynamic.yml on a fresh KRaft lab of Kafka 4.4.0 deployed with a static quorum, under a canary:
# --check and the unconfirmed run change nothing, the conversion loses nothing, site.yml afterwards changes nothing,
# replace_controller.yml works on the converted quorum (tests/drills/convert_quorum.py; about 20 minutes).
test-convert-quorum: export KAFKAOPS_LAB_KAFKA_VERSION := 4.4.0
test-convert-quorum: export KAFKAOPS_LAB_METADATA_MODE := kraft
test-convert-quorum: setup
	python tests/drills/convert_quorum.py

# upgrade_kafka.yml and rollback_upgrade.yml on a fresh KRaft lab of Kafka 3.9.2 (a static quorum) under a canary:
# --check changes nothing, the rolls to 4.4.0 and back, the rolls again killed (SIGKILL) after the first broker's
# restart, a rerun without -e kafka_version refused (upgrade-mixed-releases) restarting nothing, the rerun to 4.4.0
# (no upgraded node restarted again), the finalize run (explicit features, the quorum still static), the rollback then
# refused, site.yml afterwards unchanged, nothing lost (tests/drills/upgrade_kraft.py; about 30 minutes).
test-upgrade: export KAFKAOPS_LAB_KAFKA_VERSION := 3.9.2
test-upgrade: export KAFKAOPS_LAB_METADATA_MODE := kraft
test-upgrade: setup
	python tests/drills/upgrade_kraft.py

# The alerts on the lab (tests/drills/alerts.py), on a fresh 3.9.2 ZooKeeper lab then a fresh 4.4.0 KRaft one, under
# a canary: each fault's alert notifies the lab's receiver (the seconds from the fault recorded), nothing the fault does
# not explain notifies, and the alert resolves after its remedy; .cache/drills/alerts-<mode>.json.
test-alerts: setup
	KAFKAOPS_LAB_METADATA_MODE=zookeeper KAFKAOPS_LAB_KAFKA_VERSION=3.9.2 python tests/drills/alerts.py
	KAFKAOPS_LAB_METADATA_MODE=kraft KAFKAOPS_LAB_KAFKA_VERSION=4.4.0 python tests/drills/alerts.py

# The journey (issue 32): a ZooKeeper-mode 3.6.2 cluster the kit did not deploy (legacy-deploy) adopted, upgraded to
# 3.9.2 (rolled back and rolled again on the way), secured, migrated to KRaft, upgraded to 4.4.0 and its quorum made
# dynamic, under the canary and Kafka 3.6.2's VerifiableProducer and VerifiableConsumer, the Spark validator after
# every step (about two hours); then the shorter path, a 2.8.2 cluster adopted and upgraded to 3.9.2 the same way,
# rollback included, under 2.8.2's clients (48 minutes; tests/drills/journey.py). A failed journey goes on with
# `python tests/drills/journey.py --resume` (JOURNEY_START=2.8.2 for the shorter path).
journey: setup
	python tests/drills/journey.py
	JOURNEY_START=2.8.2 python tests/drills/journey.py

# adopt_cluster.yml on clusters the kit did not deploy: for each of ADOPT_VERSIONS, a fresh lab, `python -m lab legacy-deploy`
# (Kafka's own layout, units and configs, PLAINTEXT), then tests/integration/adopt_cluster.py: the inventory layer it
# writes, --check writing nothing, a rerun changing nothing, its refusals writing and changing nothing, then site.yml's
# takeover under an acks=all canary, a rerun changing nothing, the Spark validator (about 20 minutes).
ADOPT_VERSIONS := 2.8.2 3.6.2
test-adopt: setup
	for version in $(ADOPT_VERSIONS); do \
		python -m lab down && python -m lab up && python -m lab legacy-deploy --version $$version && \
		KAFKAOPS_LAB_KAFKA_VERSION=$$version pytest -p no:cacheprovider tests/integration/adopt_cluster.py \
			--junitxml=.cache/test-results/adopt-$$version.xml || exit 1; \
	done

# The migration to KRaft's refusals and rollbacks: the precheck's refusals on a freshly deployed ZooKeeper lab
# (tests/integration/migration_refusals.py, each changing nothing) and a broker that dies mid roll
# (migration_interrupted.py: the run stops, the rerun completes), then the rollback from every step before
# finalize and a second migration (tests/drills/rollback_kraft_migration.py, its own fresh lab); about 50 minutes.
# The forward migration under the canary is make bench-migration.
test-migration: setup
	python -m lab down
	python -m lab up
	ansible-playbook playbooks/site.yml
	pytest -p no:cacheprovider tests/integration/migration_refusals.py tests/integration/migration_interrupted.py \
		--junitxml=.cache/test-results/migration.xml
	python tests/drills/rollback_kraft_migration.py

# yamllint, ansible-lint (production profile) and ruff, then ansible-test's sanity tests of the collection (plugins/,
# meta/, roles/): validate-modules (each module's DOCUMENTATION against its argument spec, attributes, RETURN),
# ansible-doc (every module and filter renders; tests/unit/test_plugin_docs.py checks the filters' docs against their
# functions), compile, import, runtime-metadata, yamllint of the embedded docs, action-plugin-docs, symlinks and the
# small checks; tests/sanity/ignore-2.19.txt lists what is skipped and why. pep8 and pylint are left out: ruff is this
# project's Python linter, with its own style (line length 120, `_` as a throwaway name).
# Offline: ansible-test makes each test's virtual environment without pip and downloads get-pip.py from a host these
# machines cannot reach. With HOME in .cache/ansible-test, its cache holds scripts/ansible_test_get_pip.py under the
# name of ansible-core 2.19's get-pip (pip 24.2): pip from ensurepip, then the tests' requirements from PyPI.
# ansible-test needs the collection at ansible_collections/kafkaops/toolkit: ANSIBLE_TEST_CONTENT_ROOT names the link.
ANSIBLE_TEST_HOME := $(CURDIR)/.cache/ansible-test
# Refreshes the metrics recordings the alert rules' test checks every metric against (tests/fixtures/metrics/): for
# each of RECORD_LABS (metadata mode:release), a fresh lab deployed by site.yml, a canary's topic written, then the
# first node of each kind scraped over its secured endpoint (scripts/record_metrics.py).
RECORD_LABS := zookeeper:3.9.2 kraft:4.4.0
record-metrics: setup
	for lab in $(RECORD_LABS); do \
		export KAFKAOPS_LAB_METADATA_MODE=$${lab%%:*} KAFKAOPS_LAB_KAFKA_VERSION=$${lab##*:}; \
		python -m lab down && python -m lab up && ansible-playbook playbooks/site.yml && \
		rm -rf .cache/record-metrics && \
		python -m canary --client-settings "$$(PYTHONPATH=. python -c 'from lab import cluster_settings; print(cluster_settings.path())')" \
			--count 200 --ledger .cache/record-metrics/ledger && \
		PYTHONPATH=. python scripts/record_metrics.py || exit 1; \
	done

lint: setup
	yamllint --strict .
	ansible-lint
	ruff check .
	install -D -m 0644 scripts/ansible_test_get_pip.py $(ANSIBLE_TEST_HOME)/.ansible/test/cache/get_pip_24_2.py
	HOME=$(ANSIBLE_TEST_HOME) ANSIBLE_TEST_CONTENT_ROOT=$(COLLECTION_LINK) ansible-test sanity --local \
		--python-interpreter $(VENV)/bin/python --skip-test pep8 --skip-test pylint plugins/ meta/ roles/

unit: setup
	pytest -q tests/unit --junitxml=.cache/test-results/unit.xml

# The default scenario boots a fresh lab, deploys, checks idempotence and verifies, then takes it down;
# its whole output must hold none of the lab's passwords.
molecule: setup
	mkdir -p .cache/test-results
	molecule test -s default 2>&1 | tee .cache/test-results/molecule.log
	python scripts/check_no_secrets.py .cache/test-results/molecule.log

test: lint unit molecule

# Benchmarks print their figures; each says what it measures in its docstring.
bench: bench-deploy bench-roll bench-rebuild bench-validator bench-security

# The ZooKeeper to KRaft migration, step by step under a canary, each step validated (tests/drills/migrate_to_kraft.py,
# also the migration's proof): takes the lab down and up, about 30 minutes
bench-migration: setup
	python tests/drills/migrate_to_kraft.py

# rotate_credentials.yml for every kind of credential the kit made, one after the other under one acks=all canary, on
# a fresh ZooKeeper lab, then on a fresh KRaft lab: each run's wall time, acknowledged, failed sends, lost, the old
# credentials refused (tests/drills/rotate_credentials.py; about 25 minutes).
bench-rotation: setup
	python tests/drills/rotate_credentials.py
	python tests/drills/rotate_credentials.py --kraft

bench-deploy: setup
	python bench/lab_deploy.py

bench-roll: setup
	python bench/rolling_restart.py

bench-rebuild: setup
	python bench/rebuild.py

bench-validator: setup
	python bench/validator.py

# replace_controller.yml under a canary on a fresh KRaft lab of Kafka 4.4.0 (a dynamic quorum): a wiped metadata dir,
# a host that lost power (replaced by kafka4), the lab put back; wall times, the canary's unavailable seconds, the
# Spark validator's verdict (bench/replace_controller.py; takes the lab down and up, about 15 minutes)
bench-replace-controller: export KAFKAOPS_LAB_KAFKA_VERSION := 4.4.0
bench-replace-controller: export KAFKAOPS_LAB_METADATA_MODE := kraft
bench-replace-controller: setup
	python bench/replace_controller.py

# upgrade_kafka.yml from 3.9.2 to 4.4.0 on a fresh KRaft lab under a canary: the rolls' and the finalize run's wall
# times, the brokers' roll ratio (as bench-roll), each step's longest unavailability (bench/upgrade.py; takes the lab
# down and up, about 25 minutes)
bench-upgrade: export KAFKAOPS_LAB_KAFKA_VERSION := 3.9.2
bench-upgrade: export KAFKAOPS_LAB_METADATA_MODE := kraft
bench-upgrade: setup
	python bench/upgrade.py

# PLAINTEXT vs SASL_SSL for the canary (a PLAINTEXT listener added and removed by gated rolls), then the roll's
# ratio on the secured cluster.
bench-security: setup
	python bench/security.py
	python bench/rolling_restart.py

# The alerts' figures: the drill (tests/drills/alerts.py) with 3 rounds of every scenario on each mode, for the medians
# of the seconds from fault to notification; then on a fresh lab (bench/alerts.py) a broker's scrape duration and
# series at about 100 and 3,000 partitions, the canary's highest acks=all rate with and without the agent (3 rounds).
bench-alerts: bench-alerts-zookeeper bench-alerts-kraft bench-alerts-cost
bench-alerts-zookeeper: setup
	KAFKAOPS_LAB_METADATA_MODE=zookeeper KAFKAOPS_LAB_KAFKA_VERSION=3.9.2 python tests/drills/alerts.py --rounds 3
bench-alerts-kraft: setup
	KAFKAOPS_LAB_METADATA_MODE=kraft KAFKAOPS_LAB_KAFKA_VERSION=4.4.0 python tests/drills/alerts.py --rounds 3
bench-alerts-cost: setup
	python -m lab down
	python -m lab up
	ansible-playbook playbooks/site.yml
	python bench/alerts.py

# systemd-analyze security of every unit the kit runs on the deployed lab (read only).
bench-sandbox: setup
	python bench/systemd_security.py
