# The rows `vinterp --profile profile_counts.vcode` must print: opcode, count, elements, work.
# Elements are the lengths of the instruction's operands (a scalar counts 1, a segdes its total).
# Work is, per instruction, the longest vector it reads or writes (a segdes counts its segments),
# at least 1: the two CONST vectors of 5 and the one of 2 count their lengths, the other 8 CONSTs 1.
# The peak bytes and peak added columns depend on the backend's memory: profile_peaks.vcode's
# test bounds them.
+ 1 10 5
+_SCAN 1 10 5
> 4 8 4
MAKE_SEGDES 1 2 2
- 3 6 3
CONST 11 0 20
IF 4 4 4
COPY 4 0 4
CALL 4 0 4
RET 4 0 4
ENDIF 3 0 3
total 40 40 58
