# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Filters of the ``ready`` role: what ``nvidia-smi`` reports, and what an instance type promises.
Their documentation is in the YAML files beside this one."""

import re

from ansible.errors import AnsibleFilterError

# ``nvidia-smi --query-gpu=... --format=csv`` writes "[N/A]" for a field a card does not report,
# and bracketed errors such as "[Unknown Error]" or "[GPU requires reset]" for a card it can no
# longer talk to. A card that fell off the PCI bus is often not listed at all; instead a line
# "Unable to determine the device handle for GPU<bus id>: Unknown Error" appears (and the exit
# status is not 0).
NOT_SUPPORTED = "[N/A]"
LOST_CARD = re.compile(r"^Unable to determine the device handle for (?:GPU)?\s*(?P<bus_id>\S+?):?\s+(?P<error>.*)$")
# "8H100.80S.176V": 8 GPUs of the H100 family; "1L40S.20V", "2A100.44V", "CPU.4V.16G" (none).
# A header of one column: a query field name such as "memory.total [MiB]" (values have spaces
# or digits first).
QUERY_FIELD = re.compile(r"^[a-z_]+(\.[a-z_]+)*( \[[^\]]*\])?$")
GPU_INSTANCE_TYPE = re.compile(r"^(?P<gpus>\d+)(?P<model>[A-Z]+\d+[A-Z]*)\.")


def nvidia_smi_gpus(output):
    """Parse ``nvidia-smi --query-gpu=<fields> --format=csv`` (with its header line)."""
    if not isinstance(output, str):
        raise AnsibleFilterError(f"nvidia_smi_gpus expects the text nvidia-smi printed, got {type(output).__name__}")
    gpus, errors, fields = [], [], None
    for line in output.splitlines():
        line = line.strip()
        if not line:
            continue
        lost = LOST_CARD.match(line)
        if lost:
            errors.append({"pci.bus_id": lost.group("bus_id"), "error": lost.group("error").strip()})
            continue
        values = [value.strip() for value in line.split(",")]
        if fields is None and (len(values) >= 2 or "name" in line or QUERY_FIELD.match(line)):
            # the header line: "name, memory.total [MiB], ..." names the fields ("memory.total")
            fields = [value.split(" [", 1)[0].strip() for value in values]
            continue
        if fields is None or len(values) != len(fields):  # before the header, or not one value per field
            errors.append({"error": line})
            continue
        if "name" not in fields:
            # every consumer compares the model by name: a card without one cannot be checked
            errors.append({"error": f"nvidia-smi's output has no name column, so this card cannot be checked: {line}"})
            continue
        gpu = dict(zip(fields, values))
        problems = [value for value in values if value.startswith("[") and value != NOT_SUPPORTED]
        gpu["healthy"] = not problems
        if problems:
            gpu["error"] = ", ".join(sorted(set(problems)))
        gpus.append(gpu)
    return {"gpus": gpus, "errors": errors, "count": len([gpu for gpu in gpus if gpu["healthy"]])}


def instance_type_gpus(instance_type):
    """``{gpus, model}`` an instance type code promises (0 and None for CPU types)."""
    match = GPU_INSTANCE_TYPE.match(instance_type or "")
    if not match:
        return {"gpus": 0, "model": None}
    return {"gpus": int(match.group("gpus")), "model": match.group("model")}


class FilterModule:
    def filters(self):
        return {"nvidia_smi_gpus": nvidia_smi_gpus, "instance_type_gpus": instance_type_gpus}
