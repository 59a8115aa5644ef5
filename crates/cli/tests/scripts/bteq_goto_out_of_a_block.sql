SEL 1 AS one;
.IF ACTIVITYCOUNT = 1
.REMARK 'inside the block, leaving it'
.GOTO after_block
.REMARK 'skipped'
.ELSE
.REMARK 'skipped too'
.ENDIF
.REMARK 'skipped: before the label'
.LABEL after_block
.REMARK 'at the label: no block is left open'
.IF ERRORCODE = 0
.REMARK 'a new block runs'
.ENDIF
.GOTO past_a_whole_block
.IF ERRORCODE = 0
.REMARK 'skipped: inside a skipped block'
.ENDIF
.LABEL past_a_whole_block
.REMARK 'done'
