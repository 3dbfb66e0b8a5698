#!/usr/bin/python
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
module: container_deployment
short_description: Manage serverless container deployments of a Cloud Compute project
version_added: 0.1.0
description:
  - Create a serverless container deployment from a full specification (containers, compute,
    scaling, registry settings, spot) or from a deployment template; change it; pause, resume
    and restart it; delete it.
  - A deployment is identified by its O(name), which cannot change.
  - Options left out are left as they are. Within O(containers), matched with the live
    containers by position, every member left out is kept as it is, while the lists C(env),
    C(volume_mounts), C(entrypoint_overrides.entrypoint) and C(entrypoint_overrides.cmd) are
    set exactly as given (C(env) regardless of order).
  - A change of O(containers), O(compute), O(container_registry_settings) or O(spot) rolls out
    a new version (status V(version_updating)); a change of O(scaling) alone does not.
author:
  - cloudcompute.cloud maintainers (@cloudcompute)
extends_documentation_fragment:
  - cloudcompute.cloud.common
  - cloudcompute.cloud.wait
  - cloudcompute.cloud.serverless
  - cloudcompute.cloud.attributes
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.actiongroups
options:
  name:
    description:
      - Name of the deployment, a DNS label (lowercase letters, digits and C(-), at most 63).
        It is part of the endpoint's address and cannot change.
    type: str
    required: true
  state:
    description:
      - V(present) creates the deployment or updates it, and resumes it when it is paused.
      - V(paused) creates or updates it and pauses it; a paused deployment runs no replicas.
      - V(restarted) creates or updates it and restarts every replica; it always reports a
        change. A paused deployment is resumed, which starts its replicas afresh.
      - V(absent) deletes it.
    type: str
    choices: [present, absent, paused, restarted]
    default: present
  containers:
    description:
      - The containers of the deployment (one or more). Required to create a deployment
        without O(template).
  compute:
    description:
      - The GPUs each replica runs on. Required to create a deployment without O(template)
        (which defaults to the template variant's recommended compute).
  scaling:
    description:
      - How the deployment scales. Members left out keep their current values (on creation,
        the API's defaults).
    type: dict
    suboptions:
      min_replica_count:
        description: Replicas kept running even without load (V(0) scales to zero).
        type: int
      max_replica_count:
        description: Most replicas at any time.
        type: int
      scale_down_policy:
        description: When to remove replicas.
        type: dict
        suboptions:
          delay_seconds:
            description: Seconds of low load before a replica is removed.
            type: int
            required: true
      scale_up_policy:
        description: When to add replicas.
        type: dict
        suboptions:
          delay_seconds:
            description: Seconds of high load before a replica is added.
            type: int
            required: true
      queue_message_ttl_seconds:
        description: Seconds a queued request waits at most.
        type: int
      concurrent_requests_per_replica:
        description: Requests one replica serves at the same time.
        type: int
      scaling_triggers:
        description: What counts as load.
        type: dict
        suboptions:
          queue_load:
            description: Scale on the request queue.
            type: dict
            suboptions:
              threshold:
                description: Queued requests per replica that trigger scaling up.
                type: float
                required: true
          cpu_utilization:
            description: Scale on CPU utilisation.
            type: dict
            suboptions:
              enabled:
                description: Whether this trigger is used.
                type: bool
                required: true
              threshold:
                description: Utilisation in percent that triggers scaling up.
                type: float
          gpu_utilization:
            description: Scale on GPU utilisation.
            type: dict
            suboptions:
              enabled:
                description: Whether this trigger is used.
                type: bool
                required: true
              threshold:
                description: Utilisation in percent that triggers scaling up.
                type: float
  spot:
    description:
      - Run the replicas on spot capacity (cheaper, may be interrupted).
    type: bool
    aliases: [is_spot]
  template:
    description:
      - Create the deployment from a deployment template instead of O(containers). The
        template's variant, features, model-hub token and shared memory apply at creation
        only; when they differ from an existing deployment the module fails naming them
        (change O(containers) instead, or delete the deployment and create it again).
        O(compute), O(scaling) and O(spot) apply as usual.
    type: dict
    suboptions:
      id:
        description: Id or code of the template, for example V(vllm).
        type: str
        required: true
        aliases: [code]
      variant:
        description: Id of one of the template's variants (default its first).
        type: str
      features:
        description: Ids of the features to enable (default the template's default features).
        type: list
        elements: str
      hugging_face_token_secret:
        description: Name of a project secret holding a model-hub token, passed as C(HF_TOKEN).
        type: str
      shared_memory_size_in_mb:
        description: Size of a RAM disk mounted at C(/dev/shm), in MB.
        type: int
  delete_timeout:
    description:
      - With O(state=absent), milliseconds the API's delete request waits for the deployment
        to be removed (V(0) to V(300000)); V(0) returns at once.
      - By default V(0) with O(wait=false), and otherwise as long as O(wait_timeout) allows,
        but never so long that the request outlasts O(request_timeout).
      - A deployment being deleted is no longer listed at once, but its name is taken until it
        is removed; a new deployment of that name waits for it when O(wait=true).
    type: int
  purge_queue:
    description:
      - Drop every request queued for an existing deployment, before a resume or restart this
        run makes, so none of them is served. Always reports a change.
      - Not with O(state=absent), as deleting drops the queue.
    type: bool
    default: false
notes:
  - O(wait) waits until the deployment is V(healthy) (or V(paused) with O(state=paused)) after
    any change, and also when a run that changes nothing finds it still starting. A
    deployment that is V(degraded), V(unhealthy) or V(quota_reached) is waited for only after
    a change; the task then fails when O(wait_timeout) runs out, naming the last status.
  - "API calls: a run that changes nothing costs two reads (the deployment and its status), one
    more with O(template) (the template), and one list of the volumes when a shared mount names
    its volume by name."
  - In check mode the result is the deployment as the run would leave it, with the API's
    documented defaults filled in; values the API picks itself (the endpoint address, default
    scaling, the model variable of a template) are not known.
seealso:
  - module: cloudcompute.cloud.container_deployment_info
  - module: cloudcompute.cloud.job_deployment
  - module: cloudcompute.cloud.price_info
"""

EXAMPLES = r"""
- name: An inference API on one L40S, scaling from one to four replicas
  cloudcompute.cloud.container_deployment:
    name: sentiment-api
    containers:
      - name: api
        image: registry.example.com/ml/sentiment:1.4.0
        exposed_port: 8080
        healthcheck:
          path: /ready
        env:
          - name: LOG_LEVEL
            value: info
          - name: DATABASE_PASSWORD
            type: secret
            value: sentiment-db-password   # the name of the project secret
        volume_mounts:
          - type: scratch
            mount_path: /cache
    compute:
      name: L40S
      size: 1
    scaling:
      min_replica_count: 1
      max_replica_count: 4
      scaling_triggers:
        queue_load:
          threshold: 2
    container_registry_settings:
      is_private: true
      credentials: example-registry
  register: sentiment

- name: Where to send requests (with an inference API key)
  ansible.builtin.debug:
    msg: "{{ sentiment.container_deployment.endpoint_base_url }}"

- name: Roll out a new image; everything else stays as it is
  cloudcompute.cloud.container_deployment:
    name: sentiment-api
    containers:
      - image: registry.example.com/ml/sentiment:1.5.0

- name: Scale to zero when idle
  cloudcompute.cloud.container_deployment:
    name: sentiment-api
    scaling:
      min_replica_count: 0

- name: An LLM from the vLLM template, with tool calling
  cloudcompute.cloud.container_deployment:
    name: chat
    template:
      id: vllm
      variant: llama-3.1-8b-instruct
      features: [prefix-caching, tool-calling]
      hugging_face_token_secret: hf-token
    scaling:
      max_replica_count: 2

- name: Pause it for the weekend (no replicas, nothing charged for them)
  cloudcompute.cloud.container_deployment:
    name: chat
    state: paused

- name: Drop the queued requests, for example after a bad client flooded it
  cloudcompute.cloud.container_deployment:
    name: sentiment-api
    purge_queue: true

- name: Restart every replica, for example after a secret changed
  cloudcompute.cloud.container_deployment:
    name: sentiment-api
    state: restarted

- name: Delete it without waiting for the removal
  cloudcompute.cloud.container_deployment:
    name: sentiment-api
    state: absent
    delete_timeout: 0
"""

RETURN = r"""
container_deployment:
  description:
    - The deployment as the API returns it, with its C(status) (after waiting, when waiting);
      empty after O(state=absent).
    - In check mode, the deployment as the run would leave it.
  returned: always
  type: dict
  contains:
    name:
      description: Name of the deployment.
      type: str
      sample: sentiment-api
    status:
      description:
        - Status, one of V(initializing), V(image_pulling), V(healthy), V(degraded),
          V(unhealthy), V(paused), V(quota_reached), V(version_updating).
      type: str
      sample: healthy
    endpoint_base_url:
      description: Base address of the deployed endpoint, called with an inference API key.
      type: str
      sample: https://containers.example.com/sentiment-api
    created_at:
      description: When it was created.
      type: str
      sample: "2026-11-21T10:00:00.000Z"
    containers:
      description: Its containers; C(image) is an object with the image and when it last changed.
      type: list
      elements: dict
      contains:
        name:
          description: Name of the container.
          type: str
        image:
          description: The image (C(image)) and when it was last changed (C(last_updated_at)).
          type: dict
        exposed_port:
          description: Port it serves on.
          type: int
        healthcheck:
          description: Health check (C(enabled), C(port), C(path)).
          type: dict
        entrypoint_overrides:
          description: Entrypoint overrides (C(enabled), C(entrypoint), C(cmd)).
          type: dict
        env:
          description: Environment variables (C(type), C(name), C(value_or_reference_to_secret)).
          type: list
          elements: dict
        volume_mounts:
          description: Volume mounts (C(type), C(mount_path), C(secret_name), C(volume_id), C(size_in_mb)).
          type: list
          elements: dict
    compute:
      description: GPU model (C(name)) and GPUs per replica (C(size)).
      type: dict
      sample: {name: L40S, size: 1}
    scaling:
      description: Scaling options, in the shape of O(scaling).
      type: dict
    container_registry_settings:
      description: Registry settings (C(is_private), C(credentials) with the credentials' C(name)).
      type: dict
    is_spot:
      description: Whether the replicas run on spot capacity.
      type: bool
queue_purged:
  description: Whether the queue was purged (or, in check mode, would be).
  returned: always
  type: bool
"""

from ansible_collections.cloudcompute.cloud.plugins.module_utils._api import api_path, path_value
from ansible_collections.cloudcompute.cloud.plugins.module_utils._module import (
    CloudComputeModule,
    ModuleFailure,
)
from ansible_collections.cloudcompute.cloud.plugins.module_utils._resource import refuse_differences
from ansible_collections.cloudcompute.cloud.plugins.module_utils._serverless import (
    Deployment,
    at_least,
    deployment_argument_spec,
    image_name,
    prune,
    suboptions,
)

TEMPLATES_PATH = "/container-deployment-templates"
REPLICA_COUNTS_MESSAGE = "scaling: min_replica_count must be at least 0 and max_replica_count at least 1"


def delay_policy():
    return suboptions(delay_seconds=dict(type="int", required=True))


def utilization_trigger():
    return suboptions(enabled=dict(type="bool", required=True), threshold=dict(type="float"))


SCALING_OPTIONS = dict(
    min_replica_count=dict(type="int"),
    max_replica_count=dict(type="int"),
    scale_down_policy=delay_policy(),
    scale_up_policy=delay_policy(),
    queue_message_ttl_seconds=dict(type="int"),
    concurrent_requests_per_replica=dict(type="int"),
    scaling_triggers=suboptions(
        queue_load=suboptions(threshold=dict(type="float", required=True)),
        cpu_utilization=utilization_trigger(),
        gpu_utilization=utilization_trigger(),
    ),
)

TEMPLATE_OPTIONS = dict(
    id=dict(type="str", required=True, aliases=["code"]),
    variant=dict(type="str"),
    features=dict(type="list", elements="str"),
    hugging_face_token_secret=dict(type="str", no_log=False),
    shared_memory_size_in_mb=dict(type="int"),
)


class ContainerDeployment(Deployment):
    key = "container_deployment"
    path = "/container-deployments"
    running_status = "healthy"
    created_status = "initializing"
    create_alternative = " (or a template)"
    starting_statuses = ("initializing", "image_pulling", "version_updating")
    restart_status = "initializing"
    rollout_status = "version_updating"
    new_version_fields = ("containers", "compute", "container_registry_settings", "is_spot")

    checks = Deployment.checks + (
        ("scaling.min_replica_count", at_least(0), REPLICA_COUNTS_MESSAGE),
        ("scaling.max_replica_count", at_least(1), REPLICA_COUNTS_MESSAGE),
        ("template.shared_memory_size_in_mb", at_least(1), "template.shared_memory_size_in_mb: must be at least 1"),
    )

    def validate(self):
        super().validate()
        scaling = self.params["scaling"] or {}
        low, high = scaling.get("min_replica_count"), scaling.get("max_replica_count")
        if low is not None and high is not None and low > high:
            raise ModuleFailure(f"scaling: min_replica_count ({low}) must not exceed max_replica_count ({high})")

    # -------------------------------------------------------------------- desired

    def template_path(self, suffix=""):
        return api_path(TEMPLATES_PATH, path_value(self.params["template"]["id"], "template.id"), suffix)

    def read_template(self):
        return self.client.get(self.template_path())

    def creation(self):
        if not self.params["template"]:
            return super().creation()
        # the template's options (but its id, which is in the path) go into the body as they are
        options = {option: self.params["template"][option] for option in TEMPLATE_OPTIONS if option != "id"}
        body = prune(dict(options, name=self.name, **self.desired_fields(None)))
        return self.create_step(self.template_path("/deployments"), body, self.predicted_from_template)

    def desired_fields(self, current):
        return dict(super().desired_fields(current), is_spot=self.params["spot"])

    def predicted_create(self, body):
        """Also what a deployment from a template will look like (``body`` made from the template)."""
        return dict(super().predicted_create(body), is_spot=bool(self.params["spot"]))

    def predicted_from_template(self, body):
        """What a deployment from the template will look like, as far as the template tells (the
        one read of the template, in check mode only)."""
        detail = self.read_template()
        variant = self.template_variant(detail)
        chosen = self.chosen_features(detail)
        env = [
            variable
            for feature in detail.get("features") or []
            if feature.get("id") in chosen
            for variable in feature.get("env") or []
        ]
        token = body.get("hugging_face_token_secret")
        if token:
            env.append({"type": "secret", "name": "HF_TOKEN", "value_or_reference_to_secret": token})
        container = {
            "name": detail.get("code"),
            "image": variant.get("image"),
            "exposed_port": detail.get("exposed_port"),
            "healthcheck": {"path": detail.get("healthcheck_path")},  # enabled, on the exposed port
            "env": env,
        }
        return self.predicted_create(
            {
                "name": self.name,
                "containers": [prune(container)],
                "compute": body.get("compute") or variant.get("recommended_compute"),
                "scaling": body.get("scaling") or {},
            }
        )

    def template_variant(self, detail):
        template_id, wanted = self.params["template"]["id"], self.params["template"]["variant"]
        variants = detail.get("variants") or []
        if wanted is None:
            if not variants:
                raise ModuleFailure(f"template {template_id} has no variants")
            default = detail.get("default_variant")
            return next((variant for variant in variants if variant.get("id") == default), variants[0])
        found = next((variant for variant in variants if variant.get("id") == wanted), None)
        if found is None:
            listed = ", ".join(variant.get("id") for variant in variants)
            raise ModuleFailure(f"template {template_id} has no variant {wanted!r} (its variants: {listed})")
        return found

    def chosen_features(self, detail):
        template_id, features = self.params["template"]["id"], self.params["template"]["features"]
        if features is None:
            return [feature.get("id") for feature in detail.get("features") or [] if feature.get("enabled_by_default")]
        known = [feature.get("id") for feature in detail.get("features") or []]
        unknown = ", ".join(feature for feature in features if feature not in known)
        if unknown:
            listed = ", ".join(known) or "none"
            raise ModuleFailure(f"template {template_id} has no feature {unknown} (its features: {listed})")
        return features

    def field_changes(self, current):
        """A template applies at creation only: its settings that differ from the live deployment
        are a clear failure, never a silent no-op."""
        template = self.params["template"]
        if template:
            detail = self.read_template()
            variant = self.template_variant(detail)
            features = None if template["features"] is None else sorted(self.chosen_features(detail))
            desired = dict(template, variant=variant.get("id"), features=features)
            live = self.live_template_settings(detail, variant, current)
            refuse_differences(
                f"container deployment {self.name}",
                {option: (desired[option], value) for option, value in live.items()},
                "a template applies at creation only. Leave them out, change containers instead, or delete the "
                "deployment (state=absent) and create it again.",
                option_prefix="template.",
            )
        return super().field_changes(current)

    def live_template_settings(self, detail, variant, current):
        """The template's settings as the live deployment shows them (``variant``: the one asked for)."""
        containers = current.get("containers") or [{}]
        container = next((item for item in containers if item.get("name") == detail.get("code")), containers[0])
        env = dict((variable.get("name"), variable) for variable in container.get("env") or [])
        values = [
            variable.get("value_or_reference_to_secret") for variable in env.values() if variable.get("type") == "plain"
        ]
        enabled = [
            feature.get("id")
            for feature in detail.get("features") or []
            if feature.get("env") and all(variable.get("name") in env for variable in feature["env"])
        ]
        memory_sizes = [
            mount.get("size_in_mb") for mount in container.get("volume_mounts") or [] if mount.get("type") == "memory"
        ]
        return {
            "variant": self.current_variant(detail, variant, image_name(container.get("image")), values),
            "features": sorted(enabled),
            "hugging_face_token_secret": (env.get("HF_TOKEN") or {}).get("value_or_reference_to_secret"),
            "shared_memory_size_in_mb": memory_sizes[0] if memory_sizes else None,
        }

    @staticmethod
    def current_variant(detail, variant, image, values):
        """The template variant the live container runs (the ``variant`` asked for when it does;
        variants may share an image, and the model a variant serves is passed in a variable)."""
        if image == variant.get("image") and (not variant.get("model") or variant["model"] in values):
            return variant.get("id")
        return next(
            (
                other.get("id")
                for other in detail.get("variants") or []
                if other.get("image") == image and other.get("model") in values
            ),
            None,
        )

    def state_actions(self, paused, created):
        # a deployment this run creates or resumes starts afresh: no restart on top
        restart = self.params["state"] == "restarted" and not (created or paused)
        return super().state_actions(paused, created) + (["restart"] if restart else [])


def main():
    argument_spec = deployment_argument_spec(
        state=dict(type="str", choices=["present", "absent", "paused", "restarted"], default="present"),
        scaling=suboptions(**SCALING_OPTIONS),
        spot=dict(type="bool", aliases=["is_spot"]),
        template=suboptions(**TEMPLATE_OPTIONS),
    )
    module = CloudComputeModule(
        argument_spec=argument_spec,
        mutually_exclusive=[("template", "containers"), ("template", "container_registry_settings")],
    )
    ContainerDeployment(module).run()


if __name__ == "__main__":
    main()
