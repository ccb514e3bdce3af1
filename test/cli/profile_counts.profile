# The rows `vinterp --profile profile_counts.vcode` must print: opcode, count, elements.
# Elements are the lengths of the instruction's operands (a scalar counts 1, a segdes its total).
+ 1 10
+_SCAN 1 10
> 4 8
MAKE_SEGDES 1 2
- 3 6
CONST 11 0
IF 4 4
COPY 4 0
CALL 4 0
RET 4 0
ENDIF 3 0
total 40 40
