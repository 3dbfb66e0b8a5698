"""What an untrusted source can send, as hypothesis strategies: any JSON value, numbers that are
not prices, text that is almost a timestamp. Shared by the property tests of this directory."""

import math

from hypothesis import strategies as st

# Any JSON document (what an API answer, a state file or an event can hold).
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)
# A number as an API may send it: finite or not, negative, as text, or no number at all.
HOSTILE_NUMBER = st.one_of(
    st.floats(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.sampled_from(["nan", "NaN", "-inf", "inf", "1e400", "-1", "abc", "", " 2.5 ", "0x10", "1_000"]),
    st.none(),
    st.booleans(),
    st.lists(st.integers(), max_size=2),
)
# Text that looks like a timestamp: ISO 8601 parts in any combination, extreme years, offsets,
# fractions and non-ASCII digits.
DIGITS = st.sampled_from("0123456789０１２３٣")
TIMESTAMPISH = st.one_of(
    st.builds(
        lambda year, month, day, hour, minute, second, fraction, offset: (
            f"{year}-{month}-{day}T{hour}:{minute}:{second}{fraction}{offset}"
        ),
        st.sampled_from(["0001", "1970", "2026", "9999", "0000", "١٢٣٤"]),
        st.sampled_from(["01", "12", "13", "00", "1２"]),
        st.sampled_from(["01", "28", "31", "32"]),
        st.sampled_from(["00", "23", "24"]),
        st.sampled_from(["00", "59", "60"]),
        st.sampled_from(["00", "59", "60"]),
        st.sampled_from(["", ".5", ".123456789", ",1"]),
        st.sampled_from(["", "Z", "z", "+00:00", "-23:59", "+23:59", "+99:99", "-0000", "+14:00", "+1:00"]),
    ),
    st.text(DIGITS | st.sampled_from("-T:Z+. "), max_size=30),
    st.text(max_size=30),
)


def finite_non_negative(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0
