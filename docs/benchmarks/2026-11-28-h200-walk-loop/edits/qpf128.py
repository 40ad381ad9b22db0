# qpf.py with the prefetch only in the walks with O from registers (head dim 128).
import os
edit = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "qpf.py")).read()
whole = "constexpr bool kPrefetchNextQ = true;"
assert whole in edit
exec(edit.replace(whole, "constexpr bool kPrefetchNextQ = Traits::kOFromRegisters;"))
