"""The pure parts of components/python/harness.py, run by plain python (no
harness): the check's verdicts, reference() comparisons, exception lines,
params decoding. tests/integration/python_contract.sh runs it."""

import os
import sys
import unittest

sys.path.insert(0, sys.argv.pop(1))   # components/python, in the source tree
import harness  # noqa: E402


class Verdicts(unittest.TestCase):
    def test_bool(self):
        self.assertEqual(harness._verdict(True, 1e-5)["passed"], True)
        self.assertEqual(harness._verdict(False, 1e-5)["passed"], False)

    def test_error_held_to_tolerance(self):
        self.assertTrue(harness._verdict(1e-6, 1e-5)["passed"])
        v = harness._verdict(1e-3, 1e-5)
        self.assertFalse(v["passed"])
        self.assertEqual(v["mismatches"], 1)

    def test_other_types_refused(self):
        with self.assertRaises(TypeError):
            harness._verdict("yes", 1e-5)


class Compare(unittest.TestCase):
    def test_one_output_as_a_list_of_numbers(self):
        v = harness._compare([[1.0, 2.0]], [1.0, 2.0], 1e-5)
        self.assertTrue(v["passed"])
        self.assertEqual(v["checked"], 2)

    def test_mismatch_named(self):
        v = harness._compare([[1.0, 2.0, 3.0]], [1.0, 2.5, 3.0], 1e-5)
        self.assertFalse(v["passed"])
        self.assertEqual(v["mismatches"], 1)
        self.assertIn("element 1", v["detail"])

    def test_relative_above_one(self):
        self.assertTrue(harness._compare([[1000.0]], [1000.005], 1e-5)["passed"])
        self.assertFalse(harness._compare([[1.0]], [1.005], 1e-5)["passed"])

    def test_nan_output_fails(self):
        self.assertFalse(harness._compare([[float("nan")]], [1.0], 1e-5)["passed"])

    def test_counts_must_agree(self):
        with self.assertRaises(ValueError):
            harness._compare([[1.0], [2.0]], [[1.0]], 1e-5)
        with self.assertRaises(ValueError):
            harness._compare([[1.0, 2.0]], [1.0], 1e-5)


class Describe(unittest.TestCase):
    def test_last_frame_of_the_component(self):
        try:
            {}["missing"]
        except KeyError as e:
            line, full = harness._describe(e)
        self.assertRegex(line, r"test_contract\.py:\d+: KeyError: 'missing'")
        self.assertIn("Traceback", full)

    def test_config_errors_name_the_key(self):
        with self.assertRaises(harness._ConfigError) as c:
            harness._decode_params("[1]")
        self.assertEqual(harness._describe(c.exception)[0],
                         "component.config.params: expected a JSON object, {\"name\": value, ...}")
        self.assertEqual(harness._decode_params('{"n": 4}'), {"n": 4})

    def test_callable_form(self):
        with self.assertRaises(harness._ConfigError) as c:
            harness._load("NoColon", "")
        self.assertIn("component.config.callable", str(c.exception))


if __name__ == "__main__":
    os.chdir(os.path.dirname(os.path.abspath(__file__)))
    unittest.main(verbosity=1)
