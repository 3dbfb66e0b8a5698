#!/usr/bin/python
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
module: image_info
short_description: List the OS images and cluster images of Cloud Compute
version_added: 0.1.0
description:
  - Returns the OS images instances can be deployed with, or the images clusters can be
    deployed with, optionally only those a given instance or cluster type supports.
  - Filters other than O(instance_type) are applied locally and combine with AND; a list
    filter matches any of its values, case-insensitively.
author:
  - cloudcompute.cloud maintainers (@cloudcompute)
extends_documentation_fragment:
  - cloudcompute.cloud.common
  - cloudcompute.cloud.attributes.info_module
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.actiongroups
options:
  kind:
    description:
      - V(os) lists the OS images of instances, V(cluster) the images of clusters.
    type: str
    choices: [os, cluster]
    default: os
  instance_type:
    description:
      - Return only the images this type supports, and mark its default image with
        C(is_default). An instance type code with O(kind=os), a cluster type code with
        O(kind=cluster).
      - The API filters by it; a type it does not know fails the task with HTTP 404.
    type: str
  image_type:
    description:
      - Return only these image types (the value given as C(image) when deploying).
    type: list
    elements: str
  category:
    description:
      - Return only images of these categories, such as V(ubuntu), V(docker) or
        V(confidentialComputing).
    type: list
    elements: str
  default:
    description:
      - V(true) returns only the default image (of O(instance_type) when it is given),
        V(false) only the others.
    type: bool
seealso:
  - module: cloudcompute.cloud.instance_type_info
  - module: cloudcompute.cloud.cluster_type_info
"""

EXAMPLES = r"""
- name: Every OS image
  cloudcompute.cloud.image_info:
  register: images

- name: The default image of an H100 instance
  cloudcompute.cloud.image_info:
    instance_type: 1H100.80S.30V
    default: true
  register: h100_default

- name: Deploy with it
  ansible.builtin.debug:
    msg: "image: {{ h100_default.images[0].image_type }}"

- name: Docker images
  cloudcompute.cloud.image_info:
    category: docker
  register: docker_images

- name: Images a cluster type can run
  cloudcompute.cloud.image_info:
    kind: cluster
    instance_type: 16H200
  register: cluster_images
"""

RETURN = r"""
images:
  description: The matching images, in the API's order.
  returned: always
  type: list
  elements: dict
  contains:
    id:
      description: Id of the image.
      type: str
    image_type:
      description: The value given as C(image) when deploying.
      type: str
      sample: ubuntu-24.04-cuda-12.8-open-docker
    name:
      description: Name of the image.
      type: str
      sample: Ubuntu 24.04 + CUDA 12.8 Open + Docker
    category:
      description: Category of the image.
      type: str
      sample: ubuntu
    details:
      description: What the image contains.
      type: list
      elements: str
    is_default:
      description: Whether this is the default image (of O(instance_type) when it is given).
      type: bool
    is_cluster:
      description: Whether this is a cluster image.
      type: bool
"""

from ansible_collections.cloudcompute.cloud.plugins.module_utils._info import (
    Filter,
    exactly,
    exit_list_info,
    filter_options,
    unknown_type_hints,
)
from ansible_collections.cloudcompute.cloud.plugins.module_utils._module import CloudComputeModule

PATHS = {"os": "/images", "cluster": "/images/cluster"}

FILTERS = (
    Filter("image_type", "image_type", type="list", elements="str"),
    Filter("category", "category", type="list", elements="str"),
    Filter("default", "is_default", exactly, type="bool"),
)


def main():
    module = CloudComputeModule(
        argument_spec=filter_options(
            FILTERS, kind=dict(type="str", choices=["os", "cluster"], default="os"), instance_type=dict(type="str")
        )
    )
    kind, type_code = module.params["kind"], module.params["instance_type"]
    # Only with a type is a 404 about the type (without one it would mean a wrong api_url).
    hints = unknown_type_hints("instance" if kind == "os" else "cluster", type_code) if type_code else None
    exit_list_info(module, "images", PATHS[kind], query={"instance_type": type_code}, filters=FILTERS, hints=hints)


if __name__ == "__main__":
    main()
