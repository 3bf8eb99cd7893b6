#!/bin/sh
# folder_capture.sh TOP OUT: the runs whose folders tests/tools/folder_diff.py
# compares between two builds (TOP: a built tree; OUT: a new folder). A
# short spin and rms_norm, a side file of samples, a sweep, a crash while
# measuring and one in create, two ranks under mpirun (when there), a suite;
# each command's folders in OUT/NAME.path. Then, for the other build:
#   tests/tools/folder_capture.sh /path/to/main /tmp/base
#   tests/tools/folder_capture.sh . /tmp/new
#   tests/tools/folder_diff.py /tmp/base /tmp/new /path/to/main "$PWD"
TOP=$1; OUT=$2; H=$TOP/harness/harness; C=$TOP/tests/configs
export HARNESS_MACHINE_FILE=/nonexistent CUDA_VISIBLE_DEVICES=
mkdir -p $OUT
$H run $C/spin_tiny.yaml --quiet --output-dir $OUT/runs > $OUT/spin.path 2>>$OUT/err
$H run $C/rms_norm_tiny.yaml --quiet --output-dir $OUT/runs --set schedule.repeat=3 > $OUT/rms.path 2>>$OUT/err
$H run $TOP/configs/spin.yaml --quiet --output-dir $OUT/runs --set schedule.measurement_steps=12000 --set schedule.repeat=1 --set schedule.warmup_steps=1 --set component.config.duration_ns=100 > $OUT/big.path 2>>$OUT/err
(cat $C/rms_norm_tiny.yaml; echo "sweep: {component.config.hidden_size: [7, 9]}") > $OUT/sweep.yaml; $H run $OUT/sweep.yaml --quiet --output-dir $OUT/runs > $OUT/sweep.path 2>>$OUT/err
$H run $C/crashy.yaml --plugin-path $TOP/tests/fixtures/crashy --set component.variant_key=crashy_segv --set component.config.after=24 --quiet --output-dir $OUT/runs > $OUT/crash.path 2>>$OUT/err
$H run $C/crashy.yaml --plugin-path $TOP/tests/fixtures/crashy --set component.variant_key=crashy_segv --set component.config.in=create --quiet --output-dir $OUT/runs > $OUT/failed.path 2>>$OUT/err
command -v mpirun >/dev/null && timeout 120 mpirun --allow-run-as-root --oversubscribe --mca btl self,vader -np 2 $H run $C/spin_tiny.yaml --quiet --output-dir $OUT/runs > $OUT/mpi.path 2>>$OUT/err
$H run $C/spin_tiny.yaml $C/rms_norm_tiny.yaml --quiet --output-dir $OUT/suite > $OUT/suite.path 2>>$OUT/err
ls $OUT/runs > $OUT/folders
