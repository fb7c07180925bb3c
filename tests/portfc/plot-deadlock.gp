# The deadlock scenario S-04 (tests/portfc/deadlock.py): what each of the
# four ring flows delivered per window, PFC above, PortFC below, one seed.
# deadlock.py --plot PNG writes the data file and runs this script:
#
#   gnuplot -e "data='DIR/deadlock-seed1.dat'; png='docs/img/portfc-deadlock.png'; \
#               stop=6; title_pfc='...'; title_portfc='...'" tests/portfc/plot-deadlock.gp
#
# data: gnuplot index 0 (PFC) and 1 (PortFC), each row "t_s f1 f2 f3 f4"
# (the window's start since the senders started, s; Mbit/s on the wire);
# stop: when the senders stopped (s).
set terminal pngcairo size 1100,760 noenhanced font ',10'
set output png
set multiplot layout 2,1
set xlabel 'time since the senders started (s)'
set ylabel 'delivered per window (Mbit/s)'
set yrange [0:*]
set xrange [0:*]
set key outside right top
set grid ytics
set arrow 1 from stop, graph 0 to stop, graph 1 nohead dt 2 lc rgb 'black'
set label 1 'senders stop' at stop, graph 0.95 offset 0.5,0
set title title_pfc
plot data index 0 using 1:2 with steps lw 2 title 'f1 1->4 via 0', \
     '' index 0 using 1:3 with steps lw 2 title 'f2 0->5 via 4', \
     '' index 0 using 1:4 with steps lw 2 title 'f3 4->1 via 5', \
     '' index 0 using 1:5 with steps lw 2 title 'f4 5->0 via 1'
set title title_portfc
plot data index 1 using 1:2 with steps lw 2 title 'f1 1->4 via 0', \
     '' index 1 using 1:3 with steps lw 2 title 'f2 0->5 via 4', \
     '' index 1 using 1:4 with steps lw 2 title 'f3 4->1 via 5', \
     '' index 1 using 1:5 with steps lw 2 title 'f4 5->0 via 1'
unset multiplot
