# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)


class ModuleDocFragment:
    # The options container and job deployments share (plugins/module_utils/_serverless.py);
    # each module adds to the containers' and compute's descriptions when they are required.
    DOCUMENTATION = r"""
options:
  containers:
    description:
      - The containers of the deployment (one or more).
    type: list
    elements: dict
    suboptions:
      name:
        description:
          - Name of the container, a DNS label. The API names a container without one
            C(container-<n>) after its position.
        type: str
      image:
        description:
          - Container image, for example V(nginx:1.27) or V(registry.example.com/team/api:2.4).
        type: str
        required: true
      exposed_port:
        description:
          - Port the container serves HTTP on. The API's default is V(8000).
        type: int
      healthcheck:
        description:
          - Health check of the container. The API's default checks V(/health) on the exposed
            port.
        type: dict
        suboptions:
          enabled:
            description: Whether replicas are health checked.
            type: bool
          port:
            description: Port of the health check (default the exposed port).
            type: int
          path:
            description: Path of the health check, starting with C(/).
            type: str
      entrypoint_overrides:
        description:
          - Run the image with another entrypoint or command.
        type: dict
        suboptions:
          enabled:
            description:
              - Whether the overrides are used. Defaults to V(true) when O(containers[].entrypoint_overrides.entrypoint)
                or O(containers[].entrypoint_overrides.cmd) is given.
            type: bool
          entrypoint:
            description: The entrypoint, as a list of arguments.
            type: list
            elements: str
          cmd:
            description: The command, as a list of arguments.
            type: list
            elements: str
      env:
        description:
          - Environment variables of the container, exactly these.
          - The API returns the values of V(plain) variables, so they appear in the result and
            in C(--diff) output; keep sensitive values in project secrets and refer to them with
            V(secret) variables.
        type: list
        elements: dict
        suboptions:
          name:
            description: Name of the variable.
            type: str
            required: true
          value:
            description:
              - For a V(plain) variable its value; for a V(secret) variable the name of the
                project secret that holds the value (the value itself never passes through
                this module). Create the secret first with M(cloudcompute.cloud.container_secret);
                the API refuses a deployment that names a secret that does not exist.
            type: str
            required: true
          type:
            description: V(plain) or V(secret).
            type: str
            choices: [plain, secret]
            default: plain
      volume_mounts:
        description:
          - Volumes mounted into the container, exactly these.
        type: list
        elements: dict
        suboptions:
          type:
            description:
              - V(scratch) (local scratch space), V(shared) (a shared file system of the
                project), V(secret) (a project secret as files) or V(memory) (a RAM disk).
            type: str
            required: true
            choices: [scratch, secret, shared, memory]
          mount_path:
            description:
              - Where it is mounted, an absolute path. Defaults to V(/data) for V(scratch) and
                V(shared) mounts and V(/dev/shm) for V(memory); required for V(secret).
            type: str
          secret_name:
            description: For a V(secret) mount, the name of the secret.
            type: str
          volume:
            description:
              - For a V(shared) mount, the name or id of a shared file system volume of the
                project (M(cloudcompute.cloud.volume) with type V(NVMe_Shared) or V(HDD_Shared)).
            type: str
            aliases: [volume_id]
          size_in_mb:
            description: For a V(memory) mount, its size in MB.
            type: int
  compute:
    description:
      - The GPUs each replica runs on.
    type: dict
    suboptions:
      name:
        description: GPU model, for example V(H100) or V(L40S).
        type: str
        required: true
      size:
        description: Number of GPUs per replica.
        type: int
        required: true
  container_registry_settings:
    description:
      - Where the images are pulled from. The API's default is a public registry.
    type: dict
    aliases: [registry]
    suboptions:
      is_private:
        description: Whether the registry needs credentials.
        type: bool
        required: true
      credentials:
        description:
          - For a private registry, the name of the registry credentials of the project; create them
            first with M(cloudcompute.cloud.container_registry_credential).
        type: str
"""
