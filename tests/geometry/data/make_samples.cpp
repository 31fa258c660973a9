// Writes the small NanoVDB sample files used by tests/geometry/test_nanovdb_samples.py.
// Build against the NanoVDB headers of OpenVDB 10.0.1 (NanoVDB 32.4.2, Debian package
// libnanovdb-dev 10.0.1-2):
//   g++ -std=c++17 -O1 -DNANOVDB_USE_ZIP -I<include dir> make_samples.cpp -lz -o make_samples
//   ./make_samples <output dir>
// Every value written here is hard-coded in the test.
#include <nanovdb/util/GridBuilder.h>
#include <nanovdb/util/IO.h>
#include <nanovdb/util/Primitives.h>

#include <cstdio>
#include <fstream>
#include <string>

using nanovdb::Coord;
using nanovdb::Vec3f;

static void dumpBuffer(const std::string& path, const nanovdb::GridHandle<>& h)
{
    std::ofstream os(path, std::ios::binary);
    os.write(reinterpret_cast<const char*>(h.data()), h.size());
}

int main(int argc, char** argv)
{
    const std::string dir = argc > 1 ? argv[1] : ".";

    // float: a fog volume with a handful of voxels in several leaves, lower/upper nodes and root tiles
    {
        nanovdb::GridBuilder<float> builder(1.5f, nanovdb::GridClass::FogVolume);
        auto acc = builder.getAccessor();
        acc.setValue(Coord(0, 0, 0), 1.0f);
        acc.setValue(Coord(1, 0, 0), 2.0f);
        acc.setValue(Coord(7, 7, 7), 3.0f);
        acc.setValue(Coord(8, 0, 0), 4.0f);
        acc.setValue(Coord(3, 4, 5), -2.5f);
        acc.setValue(Coord(-1, -1, -1), -5.0f);
        acc.setValue(Coord(130, 5, -9), 6.25f);
        acc.setValue(Coord(5000, -4100, 17), 7.5f);
        auto handle = builder.getHandle<>(0.25, nanovdb::Vec3d(1.0, 2.0, 3.0), "float_voxels");
        nanovdb::io::writeGrid(dir + "/float_voxels.nvdb", handle, nanovdb::io::Codec::NONE);
        nanovdb::io::writeGrid(dir + "/float_voxels_zip.nvdb", handle, nanovdb::io::Codec::ZIP);
    }
    // vec3f: non-uniform voxel size through an explicit map, non-zero background
    {
        nanovdb::GridBuilder<Vec3f> builder(Vec3f(0.1f, 0.2f, 0.3f));
        auto acc = builder.getAccessor();
        acc.setValue(Coord(0, 0, 0), Vec3f(1.0f, 2.0f, 3.0f));
        acc.setValue(Coord(1, 2, 3), Vec3f(-1.0f, 0.0f, 4.5f));
        acc.setValue(Coord(-9, 8, 100), Vec3f(7.0f, 8.0f, 9.0f));
        acc.setValue(Coord(4096, 0, 0), Vec3f(0.5f, -0.5f, 0.25f));
        const double mat[3][3] = {{0.5, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 2.0}};
        const double inv[3][3] = {{2.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 0.5}};
        nanovdb::Map map;
        map.set(mat, inv, nanovdb::Vec3d(-1.0, 0.5, 2.0), 1.0);
        auto handle = builder.getHandle<>(map, "vec3f_voxels");
        nanovdb::io::writeGrid(dir + "/vec3f_voxels.nvdb", handle, nanovdb::io::Codec::NONE);
    }
    // int32: also written as a bare grid buffer (no file header)
    {
        nanovdb::GridBuilder<int32_t> builder(-1);
        auto acc = builder.getAccessor();
        acc.setValue(Coord(0, 0, 0), 42);
        acc.setValue(Coord(2, 0, 0), -7);
        acc.setValue(Coord(-3, 5, 1000), 123456);
        acc.setValue(Coord(16, 16, 16), 0);
        auto handle = builder.getHandle<>(2.0, nanovdb::Vec3d(0.0), "int32_voxels");
        nanovdb::io::writeGrid(dir + "/int32_voxels.nvdb", handle, nanovdb::io::Codec::NONE);
        dumpBuffer(dir + "/int32_voxels.grid", handle);
    }
    // float level set sphere: radius 1.5, centre (0.25, 0, 0), voxel size 0.5, half width 2 voxels
    {
        auto handle = nanovdb::createLevelSetSphere<float>(1.5f, Vec3f(0.25f, 0.0f, 0.0f), 0.5, 2.0,
                                                           nanovdb::Vec3d(0.0), "sphere_ls");
        nanovdb::io::writeGrid(dir + "/sphere_ls_zip.nvdb", handle, nanovdb::io::Codec::ZIP);
        // reference values read back with NanoVDB's own accessor along the x axis and a diagonal
        auto* grid = handle.grid<float>();
        auto acc = grid->getAccessor();
        for (int i = -8; i <= 8; ++i)
            std::printf("sphere (%d,0,0) %.9g active=%d\n", i, acc.getValue(Coord(i, 0, 0)),
                        int(acc.isActive(Coord(i, 0, 0))));
        for (int i = -6; i <= 6; ++i)
            std::printf("sphere (%d,%d,%d) %.9g active=%d\n", i, i, -i, acc.getValue(Coord(i, i, -i)),
                        int(acc.isActive(Coord(i, i, -i))));
        std::printf("sphere activeVoxelCount %llu leaves %u\n",
                    (unsigned long long)grid->activeVoxelCount(), grid->tree().nodeCount(0));
    }
    return 0;
}
