# plots/style.gp — the look of every fleetsim report plot.
#
# `fleetsim report` copies this file into the top of each generated script
# (DIR/plots/<name>.gp), after `reset` and before the plot's own commands
# (title, axis labels with units, ranges, labels, the plot itself), which
# may override what is set here.  Edit it to restyle every plot; keep it to
# plain `set` commands.  It is looked up as ./plots/style.gp, then next to
# the fleetsim binary (plots/style.gp), then in the installed data directory
# (PREFIX/share/fleetsim/plots/style.gp); without one, a built-in copy of
# this default is used.
set encoding utf8
set termoption noenhanced
set grid xtics ytics lt 1 lw 1 lc rgb '#e0e0e0'
set border lc rgb '#555555'
set key outside right top box opaque noenhanced
set style fill transparent solid 0.2 noborder
