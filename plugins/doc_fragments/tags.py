# -*- coding: utf-8 -*-
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment:
    # plugins/module_utils/_module.py TAGS_ARGUMENT_SPEC
    DOCUMENTATION = r"""
options:
  tags:
    description:
      - Tags as a dictionary of key to value; use an empty string as the value of a freeform
        tag. Keys are compared in lowercase, as the API stores them. At most 10 tags.
      - Omit to leave the tags alone.
    type: dict
  purge_tags:
    description:
      - Remove tags that are not listed in O(tags). Has no effect when O(tags) is omitted.
    type: bool
    default: true
"""
