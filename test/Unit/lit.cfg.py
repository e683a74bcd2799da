# -*- Python -*-
# GoogleTest unit tests, run through lit so that check-attn covers them.
import os

import lit.formats

config.name = "ATTN-Unit"
config.suffixes = []
config.test_exec_root = os.path.join(config.attn_obj_root, "test", "Unit")
config.test_source_root = config.test_exec_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
if not config.attn_have_unittests:
    config.unsupported = True
